import { z } from 'zod';

/**
 * A free-form JSON object (string keys, any values): metadata a caller attaches, and the nested
 * objects the API shows without a schema of their own (a subscription's customer and plan, an audit
 * entry's details). One definition, so every such field documents and validates alike.
 */
export const JsonObjectSchema = z.record(z.string(), z.unknown());
