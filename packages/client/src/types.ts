/**
 * The generated types as they cross the client's boundary (ADR 0024): the codec (./json.ts) reads
 * every number under a decimal key as a decimal string, so `Wire<T>` types those fields `string`;
 * requests take a decimal string, a bigint or a safe-integer number there (`WireInput<T>`).
 */
import type { DecimalField } from './generated/decimal-fields.js';
import type { components, operations } from './generated/openapi.js';

/** A decimal amount as the client returns it: exact, plain notation (`"12.5"`, `"100"`). */
export type DecimalString = string;
/** A decimal amount as the client takes it: a decimal string, a bigint, or a safe-integer number. */
export type DecimalInput = DecimalString | bigint | number;

type DecimalOut<V> = V extends number ? DecimalString : V extends readonly (infer U)[] ? DecimalOut<U>[] : Wire<V>;
type DecimalIn<V> = V extends number ? DecimalInput : V extends readonly (infer U)[] ? DecimalIn<U>[] : WireInput<V>;

/** A response type with every field under a decimal key typed as a decimal string (a page's `pagination` excepted). */
export type Wire<T> = T extends readonly (infer U)[]
  ? Wire<U>[]
  : T extends object
    ? { [K in keyof T]: K extends 'pagination' ? T[K] : K extends DecimalField ? DecimalOut<T[K]> : Wire<T[K]> }
    : T;

/** A request type with every field under a decimal key taking a `DecimalInput`. */
export type WireInput<T> = T extends readonly (infer U)[]
  ? WireInput<U>[]
  : T extends object
    ? { [K in keyof T]: K extends DecimalField ? DecimalIn<T[K]> : WireInput<T[K]> }
    : T;

type Json<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
type Success<O> = O extends { responses: infer R } ? Json<R[Extract<keyof R, 200 | 201 | 202>]> : never;

/** What an operation's success envelope holds in `data`, as the client returns it. */
export type OperationData<Op extends keyof operations> = Wire<Success<operations[Op]> extends { data: infer D } ? D : undefined>;
/** An operation's JSON request body, as the client takes it. */
export type OperationBody<Op extends keyof operations> = operations[Op] extends { requestBody?: infer B }
  ? WireInput<Exclude<Json<NonNullable<B>>, undefined>>
  : never;
/** An operation's query parameters. */
export type OperationQuery<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** A schema of the document, as the client returns it. */
export type Schema<Name extends keyof components['schemas']> = Wire<components['schemas'][Name]>;

/** A page of a list route. */
export type Page<T> = { items: T[]; pagination: { hasMore: boolean; limit: number; offset: number; total: number } };
/** `limit` (default 50, clamped to 200) and `offset` of a list call. */
export type PageQuery = { limit?: number; offset?: number };
