import { removeChildren } from './children';

export default async function globalTeardown(): Promise<void> {
  removeChildren(globalThis.__docketChildren);
  await globalThis.__docketRedis?.stop();
}
