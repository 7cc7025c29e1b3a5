/** Valid baseline inputs for tests; each call returns a fresh copy to mutate. */

export function forecastInput(): Record<string, any> {
  return {
    schemaVersion: '1.0',
    methodologyVersion: '1.0',
    asOf: '2026-01-04',
    period: { startDate: '2026-01-01', endDate: '2026-01-08', allocation: '320', lowBalanceThreshold: '20' },
    lookbackDays: 2,
    dailyUsage: [
      { date: '2026-01-01', creditsUsed: '10' },
      { date: '2026-01-02', creditsUsed: '20' },
      { date: '2026-01-03', creditsUsed: '30' },
    ],
    balance: { current: '200', schedule: [] },
    scenarios: [
      { key: 'low', burnMultiplier: '0.5' },
      { key: 'base', burnMultiplier: '1' },
      { key: 'high', burnMultiplier: '1.5' },
    ],
  };
}

export function planInput(): Record<string, any> {
  return {
    schemaVersion: '1.0',
    methodologyVersion: '1.0',
    period: { startDate: '2026-04-01', endDate: '2026-05-01' },
    metricEstimates: [
      { key: 'api-calls', label: 'API calls', estimatedUnits: '1000', creditsPerUnit: '0.5' },
      { key: 'reports', estimatedUnits: '20', creditsPerUnit: '5' },
    ],
    allocation: '700',
    scenarios: [
      { key: 'low', burnMultiplier: '0.8' },
      { key: 'base', burnMultiplier: '1' },
      { key: 'high', burnMultiplier: '1.25' },
    ],
  };
}
