/** True when err is PostgreSQL's unique_violation (23505), on either driver. */
export function isUniqueViolation(err: unknown, constraintPart?: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code !== '23505') return false;
  return constraintPart === undefined || `${e.constraint ?? ''} ${e.message ?? ''}`.includes(constraintPart);
}
