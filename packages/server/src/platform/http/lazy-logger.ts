import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

/** The pino logger Fastify makes (its base type omits these two). */
type Pino = FastifyBaseLogger & { isLevelEnabled(level: string): boolean; bindings(): Record<string, unknown> };

type Bindings = Record<string, unknown>;
type ChildOptions = Record<string, unknown>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger, made only when the request logs something. Fastify gives every request a pino
 * child (its `requestId`) and authentication another (its `accountId`); a request that logs nothing,
 * which is every request on the hot paths, paid both: 3–4 % of an entitlement check's CPU (ADR
 * 0030). This stands in for the child: it keeps the bindings and makes the real child (and its
 * parents) on the first log call, so every line carries exactly what it carried before.
 */
export class LazyLogger {
  #real: Pino | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger | LazyLogger,
    private readonly childBindings: Bindings,
    private readonly childOptions: ChildOptions,
  ) {}

  /** The pino child, made on first use. */
  real(): Pino {
    if (!this.#real) {
      const parent = this.parent instanceof LazyLogger ? this.parent.real() : this.parent;
      this.#real = parent.child(this.childBindings, this.childOptions) as Pino;
    }
    return this.#real;
  }

  get level(): string {
    return this.#real?.level ?? (this.childOptions.level as string | undefined) ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.real().isLevelEnabled(level);
  }

  bindings(): Bindings {
    return this.real().bindings();
  }

  child(bindings: Bindings, options: ChildOptions = {}): LazyLogger {
    return new LazyLogger(this, bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(): void {}

  private log(level: Level, args: unknown[]): void {
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }
}

/** Fastify's `childLoggerFactory`: the request's logger, lazily. */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new LazyLogger(logger, bindings, options as ChildOptions) as unknown as FastifyBaseLogger;
