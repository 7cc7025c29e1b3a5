import type { Tx } from './db/database.js';

/**
 * The in-process hook registry that lets an effect cross modules against the dependency direction
 * (ADR 0005). Two kinds of hook live here:
 *
 * - Domain events: a module that owns a change defines a typed event and emits it INSIDE the
 *   transaction that makes the change; subscribing modules register handlers at startup. Handlers
 *   get the transaction handle, run before commit in registration order, and a handler that throws
 *   rolls the whole transaction back (a paid invoice and its credit grant commit together or not
 *   at all).
 * - Extensions: a module that renders a view defines a named slot with a fallback; a module above it
 *   provides the implementation at startup (the catalog's plan view shows credit allocations without
 *   the catalog importing credits).
 *
 * Effects outside the database go after commit instead: `afterCommit` in db/transaction.ts.
 * Registration is keyed (subscriber name, extension name), so registering twice, as every test
 * runtime in one process does, replaces rather than duplicates.
 */

export type DomainEventHandler<T> = (tx: Tx, event: T) => Promise<void>;

export type DomainEvent<T> = {
  readonly name: string;
  /** Registers (or replaces) the handler of `subscriber`; the subscribing module calls this at startup. */
  on(subscriber: string, handler: DomainEventHandler<T>): void;
  /** Runs every handler, in registration order, inside `tx`; the first failure propagates. */
  emit(tx: Tx, event: T): Promise<void>;
  /** Names of the registered subscribers, in the order their handlers run. */
  subscribers(): string[];
};

const events = new Map<string, Map<string, DomainEventHandler<never>>>();

/** Declares a domain event; names are unique across the process (`<module>.<past_tense_fact>`). */
export function defineDomainEvent<T>(name: string): DomainEvent<T> {
  if (events.has(name)) throw new Error(`Domain event defined twice: ${name}`);
  const handlers = new Map<string, DomainEventHandler<T>>();
  events.set(name, handlers as Map<string, DomainEventHandler<never>>);
  return {
    name,
    on(subscriber, handler) {
      handlers.set(subscriber, handler);
    },
    async emit(tx, event) {
      for (const handler of handlers.values()) await handler(tx, event);
    },
    subscribers: () => [...handlers.keys()],
  };
}

export type Extension<F extends (...args: any[]) => any> = {
  readonly name: string;
  /** Installs the implementation (replacing an earlier one); the providing module calls this at startup. */
  provide(implementation: F): void;
  /** Calls the implementation, or the fallback when no module has provided one. */
  call(...args: Parameters<F>): ReturnType<F>;
  isProvided(): boolean;
};

const extensions = new Set<string>();

/** Declares an extension slot with the behaviour it has until a module provides it. */
export function defineExtension<F extends (...args: any[]) => any>(name: string, fallback: F): Extension<F> {
  if (extensions.has(name)) throw new Error(`Extension defined twice: ${name}`);
  extensions.add(name);
  let implementation: F | null = null;
  return {
    name,
    provide(next) {
      implementation = next;
    },
    call: (...args) => (implementation ?? fallback)(...args),
    isProvided: () => implementation !== null,
  };
}
