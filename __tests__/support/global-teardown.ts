export default async function globalTeardown(): Promise<void> {
  await globalThis.__docketRedis?.stop();
}
