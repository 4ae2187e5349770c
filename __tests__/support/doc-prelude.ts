/**
 * The prelude every documentation snippet is checked with (see docs-examples.test.ts): the names
 * the docs' fragments take from the text around them, declared once with the types the pages
 * give them. A snippet's own declaration of a name always wins over these.
 *
 * It is text, not code of this project, because its names are globals: as a .ts file it would
 * declare `docket` and `task` for every test too. checkSnippets refuses a prelude that does not
 * compile.
 */
export const PRELUDE = `
// The objects a page's examples share: a scheduler (api.md calls it docket) and what it gave.
declare const docket: import('docket').Scheduler;
declare const scheduler: import('docket').Scheduler;
declare const task: import('docket').Task;
declare const hash: string;
declare const handler: import('docket').Handler;
declare const dashboard: import('docket').DashboardHandler;
declare let lastSeenId: string;
declare const signal: AbortSignal;

// The application's own data and functions, which the examples only pass around.
declare const payload: import('docket').Json;
declare const options: import('docket').PutOptions;
declare const data: import('docket').Json;
declare const message: import('docket').Json;
declare const report: import('docket').Json;
declare const bigImport: import('docket').Json[];
declare const batch: Array<{ data: import('docket').Json; options?: import('docket').PutOptions }>;
declare const url: string;
declare const userId: string;
declare const docId: string;
declare const text: string;
declare const files: string[];
declare const err: unknown;
declare const mailer: { send(...message: import('docket').Json[]): Promise<void> };
declare const images: { resize(image: import('docket').Json): Promise<import('docket').Json> };
declare const writeRow: import('docket').Handler;
declare const send: import('docket').Handler;
declare function sendMail(data: import('docket').Json, options?: { signal?: AbortSignal }): Promise<void>;
declare function handle(data: import('docket').Json): Promise<void>;
declare function longJob(data: import('docket').Json): Promise<void>;
declare function convert(file: string): Promise<void>;
declare function publish(page: import('docket').Json | undefined, scan: import('docket').Json | undefined): Promise<void>;
declare function runJob(data: import('docket').Json, runAt: Date): Promise<void>;
declare function record(...fields: import('docket').Json[]): void;
declare function isAdmin(req: import('node:http').IncomingMessage): boolean;

// Stand-ins for web frameworks docket does not depend on (so they are not installed here), typed
// only as far as the examples use them: the examples' use of docket is what is checked.
declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';
  type Request = IncomingMessage & { body: any };
  type Response = ServerResponse & { status(code: number): Response; json(body: unknown): Response };
  type NextFunction = (err?: unknown) => void;
  type Middleware = (req: Request, res: Response, next: NextFunction) => unknown;
  interface Express {
    use(path: string, ...handlers: Middleware[]): Express;
    post(path: string, ...handlers: Middleware[]): Express;
    listen(port: number): Server;
  }
  function express(): Express;
  namespace express {
    function json(): Middleware;
  }
  export default express;
  export type { Request, Response, NextFunction };
}

declare module 'fastify' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  interface FastifyRequest { raw: IncomingMessage; headers: IncomingMessage['headers'] }
  interface FastifyReply { raw: ServerResponse; code(status: number): FastifyReply; send(body?: unknown): FastifyReply; hijack(): void }
  interface FastifyInstance {
    register(plugin: (instance: FastifyInstance) => Promise<void> | void): Promise<void>;
    addHook(name: 'onRequest', hook: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>): void;
    removeAllContentTypeParsers(): void;
    addContentTypeParser(type: string, parser: (request: FastifyRequest, payload: unknown, done: (err: Error | null, body?: unknown) => void) => void): void;
    all(path: string, handler: (request: FastifyRequest, reply: FastifyReply) => unknown): void;
    use(path: string, middleware: (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => unknown): void;
    listen(options: { port: number; host?: string }): Promise<string>;
  }
  export default function Fastify(): FastifyInstance;
  export type { FastifyInstance, FastifyReply, FastifyRequest };
}

declare module '@fastify/middie' {
  const middie: (instance: import('fastify').FastifyInstance) => Promise<void>;
  export default middie;
}

declare module 'pino' {
  export default function pino(options?: { level?: string }): {
    info(obj: object, msg?: string): void;
    warn(obj: object, msg?: string): void;
    error(obj: object, msg?: string): void;
    debug(obj: object, msg?: string): void;
  };
}
`;
