/**
 * The bench harness: runs autocannon against the Tally bench server, measures the raw baselines
 * (bench/raw-server.ts, no Tally code) on demand, checks the ledger and the stored events after a
 * scenario, and prints tables with ratios to the Tally and raw baselines and the targets.
 * A suite (bench/scenarios/*.ts) gets one Harness and decides what to measure and print.
 */
import autocannon from 'autocannon';

export type Mode = 'postgres' | 'embedded';

/** What the bench server reports when it is ready (bench/server.ts): its port, key and fixtures. */
export type Ready = {
  port: number;
  apiKey: string;
  accountId: string;
  schema: string;
  username: string;
  password: string;
  /** PostgreSQL's free client connection slots when the server was ready (undefined on PGlite). */
  freeSlots?: number;
} & Record<string, unknown>;

export type Scenario = {
  name: string;
  method: 'GET' | 'POST';
  path: string | (() => string);
  body?: () => string;
  headers?: () => Record<string, string>;
  /** Default: the bench tenant key. */
  auth?: Record<string, string>;
  /** Default: 50. */
  connections?: number;
  /**
   * Send exactly this many requests (each answered, 60 s timeout) instead of loading for the run's
   * seconds: for routes whose answers take longer than a load window (batches), whose rate is then
   * the events stored over the time all of them took (`storedPerSecond`).
   */
  amount?: number;
  /**
   * Set for routes that store usage events: how many events one answer acknowledges as stored (a
   * single event: 1 for 2xx, and for 409 conflict on a retry; a batch route counts its `stored` and
   * `duplicate` results). After the run the harness retries the requests the load generator hung
   * up on (same body, same idempotency keys), waits for the server to go quiet, and checks that
   * the events stored equal the events acknowledged.
   */
  events?: (status: number, body: string) => number;
};

export type Measured = {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** Socket errors, timeouts and non-2xx answers. */
  errors: number;
  /** What the errors were (status codes, timeouts), when there were any. */
  errorDetail?: string;
  /** Events acknowledged (scenarios with `events`), including the retried cut-off requests. */
  acked: number;
  /** Requests written but unanswered when the load generator stopped at the deadline (retried). */
  cutOff: number;
  /** Requests answered (any status). */
  answered: number;
  /** CPU time (user + system) of the server process per answered request, in microseconds. */
  cpuPerRequest?: number;
  /** The after-run check (ledger audit always; stored vs acknowledged events when `events`). */
  check?: Check;
  /** Scenarios with `amount` and `events`: the events stored per second of the whole load (every request answered). */
  storedPerSecond?: number;
  /** The raw baseline measured just before this scenario (`measure(s, beside)`), to which it is compared. */
  raw?: Measured;
};

export type Check = { auditClean: boolean; poolsChecked: number; findings: string[]; stored?: number; acked?: number; cutOff?: number; eventsOk?: boolean };

export type Target = { text: string; met: boolean };

/**
 * A group of scenarios with its own table (bench/scenarios/*.ts), listed in bench/run.ts. `modes`
 * says which databases it runs on: `npm run bench` is PostgreSQL, `npm run bench -- --embedded` PGlite.
 */
export type Suite = { name: string; modes: Mode[]; run(h: Harness): Promise<void> };

export type Row = {
  r: Measured;
  /** The Tally route it is compared with (pk-select, insert, or another scenario). */
  baseline?: Measured;
  /** The raw baseline (plain Fastify + driver): throughput and p99 ratios; its req/s is printed beside them. */
  raw?: Measured;
  target?: Target;
};

type BenchState = { events: number; audit: { poolsChecked: number; discrepancies: { poolId: string; problem: string }[] } };

export class Harness {
  readonly base: string;
  readonly #rawCache = new Map<string, Measured>();
  readonly #rawBase: string;
  readonly #failures: string[] = [];

  constructor(
    readonly mode: Mode,
    readonly ready: Ready,
    rawPort: number,
    readonly seconds: number,
    /**
     * The CPU time used so far by the Tally server and the raw server (see cpuOf), and `settle`: a
     * checkpoint of the bench database before each measurement (see settleOf).
     */
    private readonly cpu: { tally?: () => Promise<number>; raw?: () => Promise<number>; settle?: () => Promise<void> } = {},
    readonly connections = 50,
  ) {
    this.base = `http://127.0.0.1:${ready.port}`;
    this.#rawBase = `http://127.0.0.1:${rawPort}`;
  }

  /**
   * Whether a raw baseline can be measured beside each scenario: on PGlite (the raw server has its
   * own), and on PostgreSQL when the Tally pool and the raw pool (50 each) fit in its free connection
   * slots at once. Emptying the Tally pool between them instead would measure every scenario on 50
   * fresh backends (Tally's pk route fell from about 0.95x to 0.66x raw): a pool is warm in production.
   */
  get rawBesideEach(): boolean {
    if (!this.#hasRawServer) return false;
    return this.mode === 'embedded' || (this.ready.freeSlots ?? 0) >= 2 * this.connections + 5;
  }

  /** Raw port 0: no raw server (profile.ts). */
  get #hasRawServer(): boolean {
    return !this.#rawBase.endsWith(':0');
  }

  /**
   * The database named in each table's title. On Citus (BENCH_CITUS=1) the raw baselines run on the
   * coordinator alone: their SELECT reads `accounts`, a reference table with a copy there, and their
   * INSERT writes `job_runs`, a coordinator-local table (platform/db/citus.ts), so no raw statement
   * takes the coordinator-to-worker hop that every Tally tenant statement takes.
   */
  get databaseLabel(): string {
    if (this.mode === 'embedded') return 'PGlite (embedded, temp DATA_DIR)';
    return process.env.BENCH_CITUS === '1' ? 'Citus (coordinator and 2 workers; raw baselines on coordinator-local tables)' : 'PostgreSQL';
  }

  /** Targets or checks that failed so far (the run exits non-zero on any). */
  get failures(): readonly string[] {
    return this.#failures;
  }

  /**
   * Measures one scenario, then runs the after-run check (audit; stored vs acknowledged events).
   * With `beside`, the raw baseline of that kind is measured just before it (`raw` of the result):
   * the ratio then compares two runs seconds apart, not one taken minutes earlier, when this
   * machine's speed had drifted by up to a quarter (the same pk route ran at 0.75–1.01x raw).
   */
  async measure(s: Scenario, beside?: 'select' | 'insert'): Promise<Measured> {
    const raw = beside ? await this.rawBeside(beside, s.connections ?? this.connections) : undefined;
    const measured = await this.measureTally(s);
    return raw ? { ...measured, raw } : measured;
  }

  private async measureTally(s: Scenario): Promise<Measured> {
    await this.cpu.settle?.();
    await this.warm(s);
    const before = await this.state();
    const cpuBefore = await this.cpu.tally?.();
    const startedAt = performance.now();
    const { unanswered, lastAnswerAt, ...measured } = await load(this.base, s, this.seconds, s.connections ?? this.connections, s.auth ?? { 'x-api-key': this.ready.apiKey });
    // Until the last answer: autocannon resolves an `amount` run only at its next one-second tick,
    // which had rounded every batch run up to whole seconds (50,000 events in 4.0 or 6.0 s).
    const loadSeconds = ((s.amount && lastAnswerAt ? lastAnswerAt : performance.now()) - startedAt) / 1000;
    if (cpuBefore !== undefined) measured.cpuPerRequest = ((await this.cpu.tally!()) - cpuBefore) / Math.max(1, measured.answered);
    // A client whose request timed out retries it with the same idempotency key: the answer
    // (stored, or duplicate when the first attempt went through) acknowledges its events.
    for (const sent of unanswered) {
      const res = await this.resend(s, sent);
      measured.acked += s.events!(res.status, res.text);
    }
    measured.check = await this.check(s, measured, before.events);
    if (s.amount && measured.check.stored !== undefined) measured.storedPerSecond = measured.check.stored / loadSeconds;
    if (!measured.check.auditClean) this.#failures.push(`${s.name}: ledger audit found ${measured.check.findings.length} discrepancies`);
    if (measured.check.eventsOk === false) this.#failures.push(`${s.name}: stored ${measured.check.stored} events, acknowledged ${measured.check.acked}`);
    return measured;
  }

  /**
   * Runs the scenario itself, unmeasured, for BENCH_WARMUP_SECONDS (default 1; a tenth of `amount`),
   * so that it is measured warm like its baselines: V8 has compiled its path, and the pool's
   * connections have planned its statements. Measured cold, the first scenario of a kind paid for
   * both (the check ran at 1,707 req/s first and 2,658 after the same check-without-audit run).
   * The cut-off requests are retried as in `measure`, so every warm-up event is settled before the
   * count starts.
   */
  private async warm(s: Scenario): Promise<void> {
    if (warmupSeconds() <= 0) return;
    const amount = s.amount ? Math.max(5, Math.ceil(s.amount / 10)) : undefined;
    const connections = Math.min(s.connections ?? this.connections, amount ?? Infinity);
    const { unanswered } = await load(this.base, { ...s, ...(amount ? { amount } : {}) }, warmupSeconds(), connections, s.auth ?? { 'x-api-key': this.ready.apiKey });
    for (const sent of unanswered) await this.resend(s, sent);
  }

  /** Sends a request the load generator hung up on again: same path, body and headers (idempotency keys). */
  private async resend(s: Scenario, sent: Sent): Promise<{ status: number; text: string }> {
    const res = await fetch(this.base + sent.path, { method: s.method, headers: sent.headers, ...(sent.body !== undefined ? { body: sent.body } : {}) });
    return { status: res.status, text: await res.text() };
  }

  /**
   * Warms both servers (JIT, pools, prepared statements) before anything is measured. The raw
   * baselines at the run's connection count are measured here, before the Tally server's pool
   * fills: on PostgreSQL both pools of 50 would not fit in the database's connection slots at once
   * (the raw pool lets its connections go after a second idle). Raw port 0: no raw server (profile.ts).
   */
  async warmup(): Promise<void> {
    if (this.#hasRawServer) {
      await load(this.#rawBase, rawScenario('select', 'warmup'), Math.min(2, this.seconds), this.connections, {});
      await this.cpu.settle?.();
      await this.raw('select');
      await this.cpu.settle?.();
      await this.raw('insert');
      await new Promise((r) => setTimeout(r, 1500));
    }
    await load(this.base, { name: 'warmup', method: 'GET', path: '/api/v1/client/bench/pk' }, Math.min(2, this.seconds), this.connections, { 'x-api-key': this.ready.apiKey });
    if (this.#hasRawServer)
      console.log(
        this.rawBesideEach
          ? 'raw baselines: each scenario with a target against the one measured just before it ("raw req/s")'
          : `raw baselines: measured once, at the start (${this.ready.freeSlots} free connection slots; raise max_connections so that ${2 * this.connections + 5} are free to measure one beside each scenario)`,
      );
  }

  /** The raw baseline of one kind at a connection count, measured once per run (the first time it is asked for). */
  async raw(kind: 'select' | 'insert', connections = this.connections): Promise<Measured> {
    const key = `${kind}:${connections}`;
    let measured = this.#rawCache.get(key);
    if (!measured) this.#rawCache.set(key, (measured = await this.measureRaw(kind, connections)));
    return measured;
  }

  /**
   * The raw baseline measured now, as a scenario is (checkpoint, BENCH_WARMUP_SECONDS unmeasured,
   * then measured), when `rawBesideEach`; otherwise the run's first.
   */
  private async rawBeside(kind: 'select' | 'insert', connections: number): Promise<Measured> {
    if (!this.rawBesideEach) return this.raw(kind, connections);
    await this.cpu.settle?.();
    if (warmupSeconds() > 0) await load(this.#rawBase, rawScenario(kind, 'warmup'), warmupSeconds(), connections, {});
    return this.measureRaw(kind, connections);
  }

  private async measureRaw(kind: 'select' | 'insert', connections: number): Promise<Measured> {
    const name = `raw-${kind === 'select' ? 'pk-select' : 'insert'}${connections === this.connections ? '' : `-${connections}conn`}`;
    const cpuBefore = await this.cpu.raw?.();
    const { unanswered: _, lastAnswerAt: __, ...raw } = await load(this.#rawBase, rawScenario(kind, name), this.seconds, connections, {});
    if (cpuBefore !== undefined) raw.cpuPerRequest = ((await this.cpu.raw!()) - cpuBefore) / Math.max(1, raw.answered);
    return raw;
  }

  /** Logs in the bench admin user: the Authorization header of admin API calls. */
  async adminAuth(): Promise<Record<string, string>> {
    const login = await fetch(`${this.base}/public/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: this.ready.username, password: this.ready.password }) });
    if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
    return { authorization: `Bearer ${((await login.json()) as { data: { token: string } }).data.token}` };
  }

  /** Records a target's outcome (printed as met/MISSED; a miss is listed at the end of the run). */
  target(name: string, text: string, met: boolean): Target {
    if (!met) this.#failures.push(`${name}: target MISSED (${text})`);
    return { text: `${text}: ${met ? 'met' : 'MISSED'}`, met };
  }

  print(title: string, rows: Row[]): void {
    console.log(`\n${title}`);
    console.log(
      'scenario'.padEnd(24), 'req/s'.padStart(8), 'p50 ms'.padStart(7), 'p99 ms'.padStart(7), 'errors'.padStart(6),
      'cpu us/req'.padStart(10), 'vs Tally baseline'.padStart(30), 'raw req/s'.padStart(9), 'x raw'.padStart(6), 'p99 x raw'.padStart(9), '  check', '  target',
    );
    for (const { r, baseline, raw, target } of rows) {
      console.log(
        r.name.padEnd(24),
        r.rps.toFixed(0).padStart(8),
        String(r.p50).padStart(7),
        String(r.p99).padStart(7),
        String(r.errors).padStart(6),
        (r.cpuPerRequest === undefined ? '' : r.cpuPerRequest.toFixed(0)).padStart(10),
        (baseline ? `${(r.rps / baseline.rps).toFixed(2)}x of ${baseline.name}` : '(baseline)').padStart(30),
        (raw ? raw.rps.toFixed(0) : '').padStart(9),
        (raw ? (r.rps / raw.rps).toFixed(2) : '').padStart(6),
        (raw ? (r.p99 / Math.max(1, raw.p99)).toFixed(1) : '').padStart(9),
        ` ${describeCheck(r.check)}${r.errorDetail ? `; errors: ${r.errorDetail}` : ''}`,
        ` ${target?.text ?? ''}`,
      );
    }
  }

  async state(): Promise<BenchState> {
    const res = await fetch(`${this.base}/api/v1/client/bench/state`, { headers: { 'x-api-key': this.ready.apiKey } });
    if (res.status !== 200) throw new Error(`bench state: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: BenchState }).data;
  }

  /**
   * Waits until the server is quiet, then audits every credit pool of the bench account and, for
   * event routes, compares the events stored during the run with those acknowledged.
   */
  async check(s: Scenario, measured: Measured, eventsBefore: number): Promise<Check> {
    let state = await this.state();
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const next = await this.state();
      const quiet = next.events === state.events;
      state = next;
      if (quiet) break;
    }
    const findings = state.audit.discrepancies.map((d) => `${d.poolId}: ${d.problem}`);
    const check: Check = { auditClean: findings.length === 0, poolsChecked: state.audit.poolsChecked, findings };
    if (s.events) {
      check.stored = state.events - eventsBefore;
      check.acked = measured.acked;
      check.cutOff = measured.cutOff;
      check.eventsOk = check.stored === measured.acked;
    }
    for (const f of findings.slice(0, 5)) console.log(`  audit ${s.name}: ${f}`);
    return check;
  }
}

/** BENCH_WARMUP_SECONDS (default 1): how long a scenario or raw baseline runs unmeasured first. */
const warmupSeconds = () => Number(process.env.BENCH_WARMUP_SECONDS ?? 1);

/** The raw server's route of one kind (bench/raw-server.ts). */
const rawScenario = (kind: 'select' | 'insert', name: string): Scenario => ({ name, method: kind === 'select' ? 'GET' : 'POST', path: `/raw/${kind}`, body: () => '{}' });

function describeCheck(check: Check | undefined): string {
  if (!check) return '';
  const audit = check.auditClean ? `audit clean (${check.poolsChecked} pools)` : `AUDIT: ${check.findings.length} findings`;
  if (check.stored === undefined) return audit;
  const retried = check.cutOff ? ` (${check.cutOff} cut off, retried)` : '';
  return `${audit}, stored ${check.stored} ${check.eventsOk ? '=' : '≠'} acked ${check.acked}${retried}${check.eventsOk ? '' : ' MISMATCH'}`;
}

type Sent = { path: string; body?: string; headers: Record<string, string> };

/**
 * One autocannon run. A scenario with `events` counts the events each answer acknowledges, and
 * keeps the requests still unanswered when the load generator stopped at the deadline (it hangs up
 * on them, the server still processes them): the harness retries those afterwards.
 */
async function load(base: string, s: Scenario, seconds: number, connections: number, auth: Record<string, string>): Promise<Measured & { unanswered: Sent[]; lastAnswerAt: number }> {
  let acked = 0;
  let lastAnswerAt = 0;
  // One context object per request in flight (autocannon builds a fresh one per request).
  const inFlight = new Set<{ sent?: Sent }>();
  const fixedPath = typeof s.path === 'string' ? s.path : s.path();
  const result = await autocannon({
    url: base + fixedPath,
    method: s.method,
    connections,
    ...(s.amount ? { amount: s.amount, timeout: 60 } : { duration: seconds }),
    headers: { ...auth, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req: any, context: { sent?: Sent }) => {
          const built = {
            ...req,
            ...(typeof s.path === 'function' ? { path: s.path() } : {}),
            ...(s.body ? { body: s.body() } : {}),
            headers: { ...req.headers, ...(s.headers ? s.headers() : {}) },
          };
          if (s.events) {
            context.sent = { path: built.path ?? fixedPath, body: built.body, headers: built.headers };
            inFlight.add(context);
          }
          return built;
        },
        ...(s.events
          ? {
              onResponse: (status: number, body: string, context: { sent?: Sent }) => {
                inFlight.delete(context);
                lastAnswerAt = performance.now();
                acked += s.events!(status, body);
              },
            }
          : {}),
      },
    ],
  });
  const answered = result.requests.total + result.errors;
  const statuses = Object.entries(result.statusCodeStats as Record<string, { count: number }>).filter(([code]) => !code.startsWith('2'));
  const detail = [...statuses.map(([code, { count }]) => `${count}x HTTP ${code}`), ...(result.timeouts ? [`${result.timeouts} timeouts`] : []), ...(result.errors - result.timeouts ? [`${result.errors - result.timeouts} socket errors`] : [])];
  return {
    ...(detail.length > 0 ? { errorDetail: detail.join(', ') } : {}),
    name: s.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    acked,
    cutOff: Math.max(0, result.requests.sent - answered),
    answered: result.requests.total,
    unanswered: [...inFlight].flatMap((c) => (c.sent ? [c.sent] : [])),
    lastAnswerAt,
  };
}
