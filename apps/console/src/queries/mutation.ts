/**
 * What every area's hooks share: a mutation that refreshes the reads it changes, a read whose
 * 404 means "none yet", and the `data` of an answer without payload.
 */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { ApiError, unwrap } from '../api';

type Options<I, O> = {
  /** The query keys (prefixes) whose reads this mutation changes; refreshed once it settles. */
  invalidates?: QueryKey[] | ((result: O | undefined, input: I) => QueryKey[]);
  /** Invalidate on success only (the default: after a failure too, as the server may have moved). */
  onSuccessOnly?: boolean;
  onSuccess?: (result: O, input: I) => void;
};

/** A mutation over the generated client that refreshes the reads it changes. */
export function useApiMutation<I = void, O = unknown>(mutationFn: (input: I) => Promise<O>, options: Options<I, O> = {}) {
  const queryClient = useQueryClient();
  const refresh = (result: O | undefined, input: I) => {
    const keys = typeof options.invalidates === 'function' ? options.invalidates(result, input) : (options.invalidates ?? []);
    for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
  };
  return useMutation({
    mutationFn,
    onSuccess: (result, input) => {
      options.onSuccess?.(result, input);
      if (options.onSuccessOnly) refresh(result, input);
    },
    onSettled: (result, _error, input) => {
      if (!options.onSuccessOnly) refresh(result, input);
    },
  });
}

/** The read's data, or null when the API answers 404 (nothing stored yet). */
export async function orNullOn404<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** A success answer without data (a delete). */
type EmptyAnswer = { data?: { data?: undefined }; error?: unknown; response: Response };

/** Resolves when an answer without payload (a delete) succeeded; throws ApiError otherwise. */
export function unwrapEmpty(call: Promise<unknown>): Promise<undefined> {
  return unwrap(call as Promise<EmptyAnswer>);
}
