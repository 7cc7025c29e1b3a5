import { z } from 'zod';

export const DEFAULT_PAGE_SIZE = 50;
/** Larger requested pages are clamped to this size (the response's `pagination.limit` shows it). */
export const MAX_PAGE_SIZE = 200;
/** Largest `limit` accepted at all (then clamped to MAX_PAGE_SIZE): a bound, so 1e20 is a 400. */
export const MAX_PAGE_REQUEST = 1_000_000;
/** Largest `offset`: far beyond any list, and an int4 the database takes. */
export const MAX_OFFSET = 1_000_000_000;

/** Query schema for every Client API list: `limit` (1…, clamped to 200) and `offset` (≥ 0). */
export const pageQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_REQUEST)
    .default(DEFAULT_PAGE_SIZE)
    .transform((n) => Math.min(n, MAX_PAGE_SIZE))
    .describe(`Page size, default ${DEFAULT_PAGE_SIZE}; values above ${MAX_PAGE_SIZE} are clamped`),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).default(0).describe('Items to skip, default 0'),
});

export type PageQuery = z.output<typeof pageQuerySchema>;

export type Page<T> = {
  items: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
};

export function toPage<T>(items: T[], total: number, query: PageQuery): Page<T> {
  return {
    items,
    pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + items.length < total },
  };
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    pagination: z.object({
      total: z.number().int(),
      limit: z.number().int(),
      offset: z.number().int(),
      hasMore: z.boolean(),
    }),
  });
}
