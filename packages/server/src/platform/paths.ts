import { fileURLToPath } from 'node:url';

/**
 * The server package's root directory (packages/server, or /app in the container). Files the
 * service reads at run time (migrations/, static assets) are found from here, never from this
 * file's own directory: `src/` (tsx) and `dist/` (the compiled build, ADR 0020) sit at the same
 * depth, so this resolves the same in both.
 */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
