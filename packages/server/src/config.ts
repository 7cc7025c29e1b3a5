import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/**
 * The only reader of `process.env`. Every key is listed in `.env.example` with the same meaning and
 * default. Parsing fails fast and lists every problem at once.
 */
const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** An http(s) origin (scheme, host, optional port; no path): outbound clients append the vendor's own paths. */
const httpOrigin = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => /^https?:\/\/[^\s/?#]+\/?$/.test(v.trim()), `must be an http(s) origin such as ${fallback}`)
    .transform((v) => v.trim().replace(/\/+$/, ''));

/** Shortest accepted JWT_SECRET, APP_SECRETS_KEY (and earlier keys). */
export const MIN_SECRET_LENGTH = 32;

/**
 * The secrets an install must have, each with the DATA_DIR file where the embedded database keeps a
 * generated one; with DATABASE_URL they are required.
 */
export const REQUIRED_SECRETS = { JWT_SECRET: 'jwt-secret', APP_SECRETS_KEY: 'secrets-key' } as const;

const EnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  APP_PUBLIC_BASE_URL: optionalString.refine((v) => v === undefined || /^https?:\/\/[^\s/]+(\/\S*)?$/.test(v), 'must be an http(s) URL such as https://billing.example.com'),
  DATABASE_URL: optionalString,
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  DATABASE_PREPARED_STATEMENTS: booleanFlag(true),
  DATABASE_LISTEN_URL: optionalString,
  DATABASE_PIPELINE_CONNECTIONS: z.coerce.number().int().min(0).max(16).default(2),
  APP_METRICS_TOKEN: optionalString,
  APP_INGEST_GROUP_MAX_EVENTS: z.coerce.number().int().min(1).max(1000).default(200),
  APP_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  JWT_SECRET: optionalString.refine((v) => v === undefined || v.length >= MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`),
  APP_SECRETS_KEY: optionalString.refine((v) => v === undefined || v.length >= MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`),
  APP_SECRETS_KEY_PREVIOUS: optionalString
    .transform((v) => (v === undefined ? [] : v.split(',').map((k) => k.trim()).filter((k) => k !== '')))
    .refine((keys) => keys.every((k) => k.length >= MIN_SECRET_LENGTH), `each comma-separated key must be at least ${MIN_SECRET_LENGTH} characters`),
  APP_MODULES_MONETIZATION_ENABLED: booleanFlag(true),
  APP_MODULES_BUILD_ENABLED: booleanFlag(true),
  APP_MCP_ENABLED: booleanFlag(true),
  APP_MCP_ADMIN_TOOLS_ENABLED: booleanFlag(false),
  /** Unset: `live` when NODE_ENV=production, else `test` (apiKeyEnvironmentOf). */
  APP_API_KEY_ENVIRONMENT: optionalString.pipe(z.enum(['test', 'live']).optional()),
  APP_STRIPE_API_BASE: z
    .string()
    .default('https://api.stripe.com')
    .refine((v) => /^https?:\/\/[^\s/?#]+\/?$/.test(v.trim()), 'must be an http(s) origin such as https://api.stripe.com'),
  STRIPE_API_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  APP_STRIPE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120000).default(20000),
  APP_STRIPE_MAX_NETWORK_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  APP_STRIPE_WEBHOOK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  APP_SPEND_ANTHROPIC_BASE_URL: httpOrigin('https://api.anthropic.com'),
  APP_SPEND_OPENAI_BASE_URL: httpOrigin('https://api.openai.com'),
  APP_SPEND_CURSOR_BASE_URL: httpOrigin('https://api.cursor.com'),
  APP_SPEND_GITHUB_BASE_URL: httpOrigin('https://api.github.com'),
  APP_SPEND_SLACK_WEBHOOK_BASE: z.string().default('https://hooks.slack.com/').refine((v) => /^https?:\/\/\S+$/.test(v.trim()), 'must be an http(s) URL prefix such as https://hooks.slack.com/'),
  APP_SPEND_OUTBOUND_ALLOW_PRIVATE: booleanFlag(true),
  APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: booleanFlag(false),
  APP_SPEND_VENDOR_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300000).default(30000),
  APP_SPEND_VENDOR_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(4),
  APP_SPEND_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60000).default(10000),
  APP_SPEND_GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60000).default(5000),
  APP_RESEND_BASE_URL: httpOrigin('https://api.resend.com'),
  APP_RESEND_API_KEY: optionalString,
  APP_SPEND_ALERT_FROM: optionalString,
  APP_JOBS_ENABLED: booleanFlag(true),
  APP_NODE_ID: z.string().trim().min(1).max(200).optional(),
  APP_CREDIT_RESERVATION_MAX_HOLD_SECONDS: z.coerce.number().int().min(1).max(86400).default(3600),
  APP_TRUST_PROXY: booleanFlag(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DEV_SEED_USERNAME: z.string().min(1).default('admin'),
  DEV_SEED_PASSWORD: z.string().min(1).default('admin'),
  DEV_SEED_API_KEY: z
    .string()
    .regex(/^sk_(test|live)_[0-9a-f]{32}$/, 'must be sk_test_ or sk_live_ followed by 32 lowercase hex characters')
    .default('sk_test_00000000000000000000000000000000'),
});

/** The variables naming an outbound origin or URL prefix (APP_…_BASE_URL, …_API_BASE, …_WEBHOOK_BASE), not this service's own. */
export const OUTBOUND_URL_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape).filter(
  (name) => /_(BASE_URL|API_BASE|WEBHOOK_BASE)$/.test(name) && name !== 'APP_PUBLIC_BASE_URL',
);

export type Config = Readonly<{
  env: string;
  isProduction: boolean;
  port: number;
  host: string;
  /** Public origin of this service (APP_PUBLIC_BASE_URL); undefined = the request's own origin. */
  publicBaseUrl: string | undefined;
  database:
    | {
        kind: 'postgres';
        url: string;
        poolSize: number;
        /** Named prepared statements (DATABASE_PREPARED_STATEMENTS); off behind PgBouncer in transaction mode before 1.21. */
        preparedStatements: boolean;
        /** Where the cache's LISTEN session connects (DATABASE_LISTEN_URL, default DATABASE_URL); ADR 0021. */
        listenUrl: string;
        /** Pipeline-mode connections the node's hot single-statement reads share (DATABASE_PIPELINE_CONNECTIONS; 0: the pool); ADR 0045. */
        pipelineConnections: number;
      }
    | { kind: 'pglite'; dataDir: string };
  /** Bearer token `/metrics` requires (APP_METRICS_TOKEN); undefined = open. */
  metricsToken: string | undefined;
  /** Most concurrent credit-backed events of one account a node applies in one transaction (APP_INGEST_GROUP_MAX_EVENTS, ADR 0011, 0028); 1 = no grouping. */
  ingestGroupMaxEvents: number;
  /**
   * Longest life of a cached API key or tariff row on a node (APP_CACHE_TTL_MS; 0 = no cache). The
   * fallback for a missed invalidation: changes normally reach every node at once (ADR 0013).
   */
  cacheTtlMs: number;
  jwtSecret: string;
  secretsKey: string;
  /** Earlier APP_SECRETS_KEY values (APP_SECRETS_KEY_PREVIOUS): decrypt only, after a rotation. */
  secretsKeyPrevious: readonly string[];
  modules: { monetization: boolean; build: boolean };
  /** `/mcp` served on this install (APP_MCP_ENABLED); the pricing document advertises it. */
  mcpEnabled: boolean;
  mcpAdminToolsEnabled: boolean;
  apiKeyEnvironment: 'test' | 'live';
  /** The payment processor (Stripe): where the SDK connects and the install-wide fallback secrets. */
  stripe: {
    api: { host: string; port: number; protocol: 'http' | 'https' };
    fallbackApiKey: string | undefined;
    fallbackWebhookSecret: string | undefined;
    timeoutMs: number;
    maxNetworkRetries: number;
    webhookToleranceSeconds: number;
  };
  /** The internal AI-spend module: vendor origins, the outbound-URL guard (contract §7.6), vendor call limits. */
  spend: {
    anthropicBaseUrl: string;
    openaiBaseUrl: string;
    cursorBaseUrl: string;
    githubBaseUrl: string;
    slackWebhookBase: string;
    outboundAllowPrivate: boolean;
    outboundAllowLoopback: boolean;
    vendorTimeoutMs: number;
    vendorMaxRetries: number;
    /** One outbound delivery attempt (Slack, webhook, e-mail) gives up after this long. */
    deliveryTimeoutMs: number;
    /** One LiteLLM budget push or read-back (gateway enforcement) gives up after this long; it runs inside an API request. */
    gatewayTimeoutMs: number;
    alertFrom: string | undefined;
  };
  /** The e-mail provider (Resend) for spend alerts and digests. */
  resend: { baseUrl: string; apiKey: string | undefined };
  /** Credit reservations: the longest a hold may last before the expiry job releases it (ADR 0012). */
  credits: { reservationMaxHoldSeconds: number };
  jobsEnabled: boolean;
  /**
   * This node's identity across restarts (ADR 0033): a restarted node with the same identity frees at
   * once the Idempotency-Key leases its previous process held. Default `host:port` once listening.
   */
  nodeId: string | undefined;
  /** Trust X-Forwarded-For (client address for login throttling) when behind a proxy. */
  trustProxy: boolean;
  logLevel: string;
  devSeed: { username: string; password: string; apiKey: string };
  /** Warnings raised while loading (e.g. generated secrets); printed by the caller's logger. */
  warnings: readonly string[];
}>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Parses the environment. On the embedded database a missing JWT_SECRET or APP_SECRETS_KEY is
 * generated once and kept in DATA_DIR so restarts keep sessions and encrypted values readable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { data: e, problems } = parseEnvironment(env);
  if (!e || problems.length > 0) throw new ConfigError(problems);
  const warnings: string[] = [];
  const dataDir = dataDirOf(env);
  // Only reached without DATABASE_URL when a secret is missing: the embedded install keeps its own.
  const jwtSecret = e.JWT_SECRET ?? persistedSecret(dataDir, REQUIRED_SECRETS.JWT_SECRET, 'JWT_SECRET', warnings);
  const secretsKey = e.APP_SECRETS_KEY ?? persistedSecret(dataDir, REQUIRED_SECRETS.APP_SECRETS_KEY, 'APP_SECRETS_KEY', warnings);

  return Object.freeze({
    env: e.NODE_ENV,
    isProduction: e.NODE_ENV === 'production',
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.APP_PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    database: e.DATABASE_URL
      ? {
          kind: 'postgres' as const,
          url: e.DATABASE_URL,
          poolSize: e.DATABASE_POOL_SIZE,
          preparedStatements: e.DATABASE_PREPARED_STATEMENTS,
          listenUrl: e.DATABASE_LISTEN_URL ?? e.DATABASE_URL,
          pipelineConnections: e.DATABASE_PIPELINE_CONNECTIONS,
        }
      : { kind: 'pglite' as const, dataDir },
    metricsToken: e.APP_METRICS_TOKEN,
    ingestGroupMaxEvents: e.APP_INGEST_GROUP_MAX_EVENTS,
    cacheTtlMs: e.APP_CACHE_TTL_MS,
    jwtSecret,
    secretsKey,
    secretsKeyPrevious: Object.freeze(e.APP_SECRETS_KEY_PREVIOUS),
    modules: { monetization: e.APP_MODULES_MONETIZATION_ENABLED, build: e.APP_MODULES_BUILD_ENABLED },
    mcpEnabled: e.APP_MCP_ENABLED,
    mcpAdminToolsEnabled: e.APP_MCP_ADMIN_TOOLS_ENABLED,
    apiKeyEnvironment: apiKeyEnvironmentOf(e),
    stripe: {
      api: stripeApiOrigin(e.APP_STRIPE_API_BASE),
      fallbackApiKey: e.STRIPE_API_KEY,
      fallbackWebhookSecret: e.STRIPE_WEBHOOK_SECRET,
      timeoutMs: e.APP_STRIPE_TIMEOUT_MS,
      maxNetworkRetries: e.APP_STRIPE_MAX_NETWORK_RETRIES,
      webhookToleranceSeconds: e.APP_STRIPE_WEBHOOK_TOLERANCE_SECONDS,
    },
    spend: {
      anthropicBaseUrl: e.APP_SPEND_ANTHROPIC_BASE_URL,
      openaiBaseUrl: e.APP_SPEND_OPENAI_BASE_URL,
      cursorBaseUrl: e.APP_SPEND_CURSOR_BASE_URL,
      githubBaseUrl: e.APP_SPEND_GITHUB_BASE_URL,
      slackWebhookBase: e.APP_SPEND_SLACK_WEBHOOK_BASE.trim(),
      outboundAllowPrivate: e.APP_SPEND_OUTBOUND_ALLOW_PRIVATE,
      outboundAllowLoopback: e.APP_SPEND_OUTBOUND_ALLOW_LOOPBACK,
      vendorTimeoutMs: e.APP_SPEND_VENDOR_TIMEOUT_MS,
      vendorMaxRetries: e.APP_SPEND_VENDOR_MAX_RETRIES,
      deliveryTimeoutMs: e.APP_SPEND_DELIVERY_TIMEOUT_MS,
      gatewayTimeoutMs: e.APP_SPEND_GATEWAY_TIMEOUT_MS,
      alertFrom: e.APP_SPEND_ALERT_FROM,
    },
    resend: { baseUrl: e.APP_RESEND_BASE_URL, apiKey: e.APP_RESEND_API_KEY },
    credits: { reservationMaxHoldSeconds: e.APP_CREDIT_RESERVATION_MAX_HOLD_SECONDS },
    jobsEnabled: e.APP_JOBS_ENABLED,
    nodeId: e.APP_NODE_ID,
    trustProxy: e.APP_TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    devSeed: { username: e.DEV_SEED_USERNAME, password: e.DEV_SEED_PASSWORD, apiKey: e.DEV_SEED_API_KEY },
    warnings,
  });
}

/**
 * DATA_DIR as an absolute path. A relative one is taken from the directory the user ran npm in
 * (npm's INIT_CWD), not from the workspace npm switches to: `npm start` at the repository root keeps
 * its data in the root's ./data, as the README says. Without npm it is the process's own directory.
 */
export function dataDirOf(env: NodeJS.ProcessEnv): string {
  const dir = env.DATA_DIR?.trim() || './data';
  return resolve(env.INIT_CWD?.trim() || process.cwd(), dir);
}

/**
 * The key environment in force: APP_API_KEY_ENVIRONMENT when set, otherwise `live` in production
 * (an install serving real customers must not hand out `sk_test_` keys) and `test` elsewhere.
 */
export function apiKeyEnvironmentOf(e: { NODE_ENV?: string; APP_API_KEY_ENVIRONMENT?: string }): 'test' | 'live' {
  if (e.APP_API_KEY_ENVIRONMENT === 'test' || e.APP_API_KEY_ENVIRONMENT === 'live') return e.APP_API_KEY_ENVIRONMENT;
  return e.NODE_ENV?.trim() === 'production' ? 'live' : 'test';
}

/**
 * Every problem loadConfig would refuse, without its side effects (it generates missing secrets of
 * the embedded database): `tally doctor` lists them.
 */
export function configProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  return parseEnvironment(env).problems;
}

function parseEnvironment(env: NodeJS.ProcessEnv) {
  const parsed = EnvSchema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  const present = (name: string) => (env[name] ?? '').trim() !== '';
  if (present('DATABASE_URL')) {
    for (const name of Object.keys(REQUIRED_SECRETS)) {
      if (!present(name)) problems.push(`${name}: required when DATABASE_URL is set`);
    }
  }
  return { data: parsed.success ? parsed.data : undefined, problems };
}

/** The SDK takes host, port and protocol rather than a URL (vendor-apis.md §6.2). */
function stripeApiOrigin(base: string): Config['stripe']['api'] {
  const url = new URL(base.trim());
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
}

function persistedSecret(dataDir: string, file: string, name: string, warnings: string[]): string {
  const path = join(dataDir, file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(path, secret, { mode: 0o600 });
  warnings.push(`${name} was not set: generated one and stored it in ${path}. Set ${name} before exposing this install.`);
  return secret;
}
