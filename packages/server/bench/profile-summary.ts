/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): the top functions by self time, and self time
 * by package (node_modules/<name>, Tally src/..., node internals, wasm, GC, idle).
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [function-name]
 * With a function name, also prints the call paths (four frames up) that spend its self time.
 * Diagnostic only (ADR 0010).
 */
import { readFileSync } from 'node:fs';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const [file, topArg, callersOf] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const top = Number(topArg ?? 25);

const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

function packageOf(url: string, name: string): string {
  if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') return name;
  if (url.startsWith('wasm://') || name.startsWith('$') || /^wasm-function/.test(name)) return 'wasm (PGlite)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const src = /packages\/server\/(src\/(?:platform\/[^/]+|modules\/[^/]+)|bench)/.exec(url);
  if (src) return src[1]!;
  if (url.startsWith('node:') || url === '') return 'node internals';
  return url;
}

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const name = functionName || '(anonymous)';
  const where = url ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*packages\/server\//, '')}:${lineNumber + 1}` : '';
  const key = `${name} ${where}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const pkg = packageOf(url, name);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}

const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`total ${(total / 1e6).toFixed(2)} s sampled\n\nself time by package`);
for (const [pkg, us] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${pct(us)}  ${pkg}`);
console.log(`\ntop ${top} functions by self time`);
for (const [fn, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${fn.slice(0, 150)}`);

if (callersOf) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const paths = new Map<string, number>();
  for (const [id, us] of self) {
    if (byId.get(id)!.callFrame.functionName !== callersOf) continue;
    const frames: string[] = [];
    for (let p = parent.get(id); p !== undefined && frames.length < Number(process.env.PROFILE_DEPTH ?? 4); p = parent.get(p)) {
      const f = byId.get(p)!.callFrame;
      frames.push(`${f.functionName || '(anonymous)'}@${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}`);
    }
    const key = frames.join(' < ');
    paths.set(key, (paths.get(key) ?? 0) + us);
  }
  console.log(`\ncall paths of ${callersOf}`);
  for (const [path, us] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`${pct(us)}  ${path}`);
}
