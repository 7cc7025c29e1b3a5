import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { decimalText } from '../../format';

/**
 * Spend amounts arrive in cents as exact decimal text ("12345.678"); they are shown in dollars by
 * moving the decimal point two places (never through a float), with at least two decimals.
 */
export function dollars(cents: number | string | null | undefined): string {
  if (cents === null || cents === undefined) return '—';
  const text = decimalText(cents);
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace('-', '').split('.') as [string, string?];
  const digits = whole.padStart(3, '0') + fraction;
  const point = digits.length - fraction.length - 2;
  let out = `${digits.slice(0, point).replace(/^0+(?=\d)/, '')}.${digits.slice(point)}`;
  out = out.replace(/(\.\d\d\d*?)0+$/, '$1');
  const [w, f] = out.split('.') as [string, string];
  const grouped = w.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}$${grouped}.${f}`;
}

/** Dollars typed by the user ("12.5") as cents decimal text ("1250"), exactly; null when not a number. */
export function dollarsToCents(input: string): string | null {
  const text = input.trim().replace(/^\$/, '').replace(/,/g, '');
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  const padded = fraction.padEnd(2, '0');
  const cents = `${whole}${padded.slice(0, 2)}`.replace(/^0+(?=\d)/, '');
  const rest = padded.slice(2).replace(/0+$/, '');
  return rest ? `${cents}.${rest}` : cents;
}

/** A share as a percentage (for bars only: display, never arithmetic on amounts). */
export function percentOf(part: number | string | null | undefined, whole: number | string | null | undefined): number {
  const p = Number(decimalText(part));
  const w = Number(decimalText(whole));
  if (!(w > 0)) return 0;
  return Math.max(0, (p / w) * 100);
}

export function Bar({ percent, label }: { percent: number; label: string }) {
  return (
    <div className={`bar${percent > 100 ? ' over' : ''}`} role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(Math.min(percent, 100))}>
      <span style={{ width: `${Math.min(percent, 100)}%` }} />
    </div>
  );
}

const PALETTE = ['#2553c7', '#d9822b', '#1d6b3a', '#b3261e', '#7a4cc2', '#0f8b8d', '#8c6d1f', '#c2185b'];

/**
 * A stacked bar chart (uPlot): x are day labels, each series a stack layer. Plot values are
 * numbers (pixels need them); the tables next to each chart show the exact amounts.
 */
export function StackedBars({ label, days, series }: { label: string; days: string[]; series: { name: string; values: number[] }[] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || days.length === 0) return;
    const xs = days.map((_, i) => i);
    const stacked: number[][] = [];
    let running = days.map(() => 0);
    for (const s of series) {
      running = running.map((r, i) => r + (s.values[i] ?? 0));
      stacked.push(running);
    }
    const bars = uPlot.paths.bars!({ size: [0.7, 60] });
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth - 8),
        height: 240,
        scales: { x: { time: false } },
        axes: [{ values: (_u, ticks) => ticks.map((t) => days[t] ?? '') }, { values: (_u, ticks) => ticks.map((t) => `$${t}`) }],
        // Drawn from the top of the stack down so each layer covers the one below it.
        series: [
          {},
          ...series
            .map((s, i) => ({ label: s.name, fill: PALETTE[i % PALETTE.length], stroke: PALETTE[i % PALETTE.length], paths: bars, points: { show: false } }))
            .reverse(),
        ],
      },
      [xs, ...stacked.slice().reverse()],
      el,
    );
    return () => plot.destroy();
  }, [days, series]);
  return <div className="chart" ref={ref} role="img" aria-label={label} />;
}
