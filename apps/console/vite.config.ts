import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** Where `npm run dev:console` sends API calls: a server started with `npm start` (or TALLY_URL). */
const target = process.env.TALLY_URL ?? 'http://localhost:8080';
const proxied = ['/api', '/public', '/v3', '/swagger-ui', '/swagger-ui.html', '/healthz', '/readyz', '/mcp'];

export default defineConfig({
  plugins: [react()],
  resolve: {
    // The typed client from its source: no build order between the two workspaces.
    alias: { '@tally/client': fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url)) },
  },
  // The manifest (dist/.vite/, never served) tells the console benchmark which chunks a page loads.
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: false, manifest: true },
  server: { port: 5173, proxy: Object.fromEntries(proxied.map((path) => [path, { target, changeOrigin: false }])) },
});
