import type { SpendOutcomeSourceKind } from '../../tables.js';
import { invalid, invalidField } from '../../../../platform/errors/app-error.js';

/** Outcome-source rules (contract §7.7), pure. */

export const MAX_SOURCE_LABEL = 100;
export const MAX_SOURCE_TOKEN = 4096;
export const MAX_SOURCE_SCOPE = 2000;
export const MAX_SOURCE_REPOS = 100;
/** Days the hourly outcome pull reads again (merges are final, but a new source misses nothing recent). */
export const HOURLY_OUTCOME_DAYS = 3;

export const LINEAR_NOT_SUPPORTED = 'LINEAR sources are not supported yet';

export type CreateSourceInput = { source: SpendOutcomeSourceKind; label: string; token: string; scope?: string | null | undefined; defaultSpendUnitId?: string | null | undefined };
export type NewSource = { source: 'GITHUB'; label: string; token: string; repos: string[]; defaultSpendUnitId: string | null };

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** The create request made canonical: label and token trimmed and required, the scope parsed. */
export function newSourceOf(input: CreateSourceInput): NewSource {
  if (input.source !== 'GITHUB') throw invalid(LINEAR_NOT_SUPPORTED);
  const label = input.label.trim();
  if (label === '') throw invalidField('label', 'must not be blank');
  if (label.length > MAX_SOURCE_LABEL) throw invalidField('label', `must be at most ${MAX_SOURCE_LABEL} characters`);
  const token = input.token.trim();
  if (token === '') throw invalidField('token', 'must not be blank');
  return { source: 'GITHUB', label, token, repos: githubReposOf(input.scope), defaultSpendUnitId: input.defaultSpendUnitId ?? null };
}

/**
 * A GITHUB scope `owner/repo,…` → its repositories, trimmed and de-duplicated (case-insensitively,
 * as GitHub names are), in the order given.
 */
export function githubReposOf(raw: string | null | undefined): string[] {
  const parts = (raw ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) throw invalid('GITHUB needs a scope (owner/repo, comma separated)');
  const repos = new Map<string, string>();
  for (const part of parts) {
    if (!REPO.test(part)) throw invalid(`Not a GitHub repository (expected owner/repo): ${part}`);
    if (!repos.has(part.toLowerCase())) repos.set(part.toLowerCase(), part);
  }
  if (repos.size > MAX_SOURCE_REPOS) throw invalid(`A GITHUB source covers at most ${MAX_SOURCE_REPOS} repositories`);
  return [...repos.values()];
}

/** The stored scope: the repositories, comma separated. */
export const scopeOfRepos = (repos: readonly string[]) => repos.join(',');
