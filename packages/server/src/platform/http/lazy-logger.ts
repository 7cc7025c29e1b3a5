import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

/** The pino logger Fastify makes (its base type omits these two). */
type Pino = FastifyBaseLogger & { isLevelEnabled(level: string): boolean; bindings(): Record<string, unknown> };

type Bindings = Record<string, unknown>;
type ChildOptions = Record<string, unknown>;
/** The levels a logger writes at (pino's, `silent` aside): each is a method that logs through the real child. */
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LogMethod = (...args: unknown[]) => void;

/**
 * A request's logger, made only when the request logs something. Fastify gives every request a pino
 * child (its `requestId`) and authentication another (its `accountId`); a request that logs nothing,
 * which is every request on the hot paths, paid both: 3–4 % of an entitlement check's CPU (ADR
 * 0030). This stands in for the child: it keeps the bindings and makes the real child (and its
 * parents) on the first log call, so every line carries exactly what it carried before.
 */
export class LazyLogger {
  #real: Pino | undefined;
  declare fatal: LogMethod;
  declare error: LogMethod;
  declare warn: LogMethod;
  declare info: LogMethod;
  declare debug: LogMethod;
  declare trace: LogMethod;

  static {
    // One method per level, on the prototype: each makes the real child on first use and logs through it.
    for (const level of LEVELS) {
      LazyLogger.prototype[level] = function (this: LazyLogger, ...args: unknown[]) {
        (this.real()[level] as LogMethod)(...args);
      };
    }
  }

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

  silent(): void {}
}

/** Fastify's `childLoggerFactory`: the request's logger, lazily. */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new LazyLogger(logger, bindings, options as ChildOptions) as unknown as FastifyBaseLogger;
