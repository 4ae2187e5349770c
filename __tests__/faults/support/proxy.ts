/**
 * A TCP proxy in front of one Redis port, so a scenario can break the network between clients and
 * Redis without touching either: slow it down, hang it, reset it, refuse it, or lose one reply.
 *
 * Modes are about the traffic of every connection, old and new:
 * - pass: bytes go through at once.
 * - latency: each chunk, in each direction, waits mean ± jitter ms (uniform). A round trip thus
 *   costs about twice the mean. Chunks of one direction leave in the order they came: a late chunk
 *   holds back the ones behind it, as TCP would.
 * - blackhole: connections are accepted and kept, nothing is forwarded. What was held goes through
 *   once the mode changes (the partition healed and TCP retransmitted); reset() drops it instead.
 * - refuse: the proxy stops listening, so a new connect fails with ECONNREFUSED. Connections already
 *   open keep passing: call reset() as well to make the server look gone.
 * Plus two one-off faults: reset() (RST on every open connection) and cutAfterNextWrite().
 * The upstream is dialled per connection, so a Redis restarted on the same port is found again.
 */
import net from 'node:net';

type Mode = { kind: 'pass' } | { kind: 'latency'; meanMs: number; jitterMs: number } | { kind: 'blackhole' } | { kind: 'refuse' };

/** A chunk and when it may leave; `cut` marks the write after which the connection is cut. */
interface Held {
  at: number;
  chunk: Buffer;
  cut: boolean;
}

/** One direction of one connection: a queue that only its head may leave, so order is kept. */
class Pipe {
  private readonly queue: Held[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly proxy: RedisProxy,
    private readonly write: (held: Held) => void,
  ) {}

  push(chunk: Buffer, cut = false): void {
    this.queue.push({ at: this.proxy.departure(), chunk, cut });
    this.pump();
  }

  pump(): void {
    if (this.timer || this.proxy.holding) return;
    while (this.queue.length > 0 && this.queue[0].at <= Date.now()) this.write(this.queue.shift()!);
    if (this.queue.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, this.queue[0].at - Date.now());
  }

  drop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queue.length = 0;
  }
}

/** A client connection and its own upstream connection to Redis. */
interface Link {
  client: net.Socket;
  server: net.Socket;
  up: Pipe;
  down: Pipe;
  /** Cut: the client is gone, the server side only drains. */
  cut: boolean;
}

interface CutRequest {
  match: (chunk: Buffer) => boolean;
  done: () => void;
}

export class RedisProxy {
  private mode: Mode = { kind: 'pass' };
  private listener: net.Server | null = null;
  private readonly links = new Set<Link>();
  private cutRequest: CutRequest | null = null;

  private constructor(
    readonly port: number,
    private readonly target: number,
  ) {}

  /** Listens on a free loopback port and forwards to 127.0.0.1:`target`. */
  static async start(target: number): Promise<RedisProxy> {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const proxy = new RedisProxy(port, target);
    await proxy.listen();
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Open client connections. */
  get connections(): number {
    return this.links.size;
  }

  /** True while traffic is held (blackhole). */
  get holding(): boolean {
    return this.mode.kind === 'blackhole';
  }

  /** When a chunk pushed now may leave. */
  departure(): number {
    if (this.mode.kind !== 'latency') return Date.now();
    const { meanMs, jitterMs } = this.mode;
    return Date.now() + Math.max(0, meanMs + jitterMs * (2 * Math.random() - 1));
  }

  pass(): Promise<void> {
    return this.setMode({ kind: 'pass' });
  }

  latency(meanMs: number, jitterMs = 0): Promise<void> {
    return this.setMode({ kind: 'latency', meanMs, jitterMs });
  }

  blackhole(): Promise<void> {
    return this.setMode({ kind: 'blackhole' });
  }

  refuse(): Promise<void> {
    return this.setMode({ kind: 'refuse' });
  }

  /** Every open connection gets an RST on both sides; what was in flight is lost. */
  reset(): void {
    for (const link of [...this.links]) this.drop(link);
  }

  /**
   * Arms a one-off cut: the next client write (that `match` accepts) reaches Redis, and at once the
   * client's connection is reset, so the reply never comes back: the command ran, the caller cannot
   * know. Resolves when the cut happened.
   */
  cutAfterNextWrite(match: (chunk: Buffer) => boolean = () => true): Promise<void> {
    return new Promise((done) => (this.cutRequest = { match, done }));
  }

  async close(): Promise<void> {
    this.reset();
    await this.unlisten();
  }

  private async setMode(mode: Mode): Promise<void> {
    this.mode = mode;
    if (mode.kind === 'refuse') await this.unlisten();
    else if (!this.listener) await this.listen();
    // Leaving blackhole lets the held chunks go; a new latency applies to chunks pushed from now.
    for (const link of this.links) {
      link.up.pump();
      link.down.pump();
    }
  }

  private listen(): Promise<void> {
    const listener = net.createServer((client) => this.open(client));
    this.listener = listener;
    return new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  private async unlisten(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    // close() stops accepting at once; its callback waits for every connection, so don't await it.
    listener?.close();
  }

  private open(client: net.Socket): void {
    const server = net.connect(this.target, '127.0.0.1');
    const link: Link = { client, server, cut: false } as Link;
    link.up = new Pipe(this, (held) => this.forward(link, held));
    link.down = new Pipe(this, (held) => client.write(held.chunk));
    this.links.add(link);
    client.on('data', (chunk: Buffer) => link.up.push(chunk, this.takeCut(chunk)));
    server.on('data', (chunk: Buffer) => {
      if (!link.cut) link.down.push(chunk);
    });
    client.on('error', () => this.drop(link));
    server.on('error', () => this.drop(link));
    client.on('close', () => this.closeLink(link));
    server.on('close', () => this.drop(link));
  }

  private takeCut(chunk: Buffer): boolean {
    if (!this.cutRequest || !this.cutRequest.match(chunk)) return false;
    const { done } = this.cutRequest;
    this.cutRequest = null;
    setImmediate(done);
    return true;
  }

  private forward(link: Link, held: Held): void {
    if (link.server.destroyed) return;
    link.server.write(held.chunk);
    if (!held.cut) return;
    // The command is in Redis's socket buffer now; Redis runs it even though FIN follows (it reads
    // the data before it sees the end). The client gets an RST and never sees the reply.
    link.cut = true;
    link.down.drop();
    link.server.end();
    abortSocket(link.client);
  }

  /** The client went away: a cut link lets the server side finish on its own, others close now. */
  private closeLink(link: Link): void {
    if (!link.cut) this.drop(link);
  }

  private drop(link: Link): void {
    this.links.delete(link);
    link.up.drop();
    link.down.drop();
    abortSocket(link.client);
    abortSocket(link.server);
  }
}

/**
 * Closes a socket with an RST where Node can. A socket whose write side is already ended (our
 * end(), or the automatic one after the peer's FIN) cannot be reset: libuv answers EINVAL, and
 * Node 20 then leaks the handle, which makes the process spin at 100% CPU when it exits. Those,
 * and sockets still connecting, are destroyed plainly.
 */
function abortSocket(socket: net.Socket): void {
  if (socket.destroyed) return;
  if (socket.writableEnded || socket.connecting) socket.destroy();
  else socket.resetAndDestroy();
}
