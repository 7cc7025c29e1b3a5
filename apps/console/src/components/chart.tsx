import { useEffect, useRef, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatCredits } from '../format';

/** Room for a value axis' longest label (uPlot's fixed default clips "50,000"). */
function axisSize(_self: uPlot, values: string[] | null): number {
  const longest = (values ?? []).reduce((n, v) => Math.max(n, String(v ?? '').length), 0);
  return Math.max(40, 14 + longest * 8);
}

/**
 * One line or bar series: each day's value as exact decimal text (null: none that day), and how the
 * table shows a value (default: every digit, grouped).
 */
export type ChartSeries = {
  label: string;
  values: (string | null)[];
  color: string;
  axis?: 'left' | 'right';
  bars?: boolean;
  show?: (value: string) => ReactNode;
};

/**
 * A time chart over UTC days (uPlot, ADR 0019). Values are plotted as numbers: a chart is a
 * picture. The same data is in a visually hidden table for screen readers, shown from the exact
 * decimal texts (never from the plotted doubles).
 */
export function DayChart({ title, days, series, height = 220 }: { title: string; days: string[]; series: ChartSeries[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const hasRight = series.some((s) => s.axis === 'right');
    const bars = uPlot.paths.bars!({ size: [0.6, 24] });
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 300),
        height,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: true },
        scales: { x: { time: true }, ...(hasRight ? { right: { auto: true } } : {}) },
        axes: [
          { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.15)' } },
          { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.15)' }, size: axisSize },
          ...(hasRight ? [{ scale: 'right', side: 1, stroke: 'currentColor', grid: { show: false }, size: axisSize }] : []),
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            ...(s.axis === 'right' ? { scale: 'right' } : {}),
            ...(s.bars ? { paths: bars, fill: `${s.color}55` } : {}),
          })),
        ],
      },
      [xs, ...series.map((s) => s.values.map((v) => (v === null ? null : Number(v))))] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 300), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, series, height]);
  return (
    <figure className="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <div ref={box} aria-hidden="true" />
      <table className="visually-hidden">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            {series.map((s) => (
              <th key={s.label} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((d, i) => (
            <tr key={d}>
              <th scope="row">{d}</th>
              {series.map((s) => (
                <td key={s.label}>{showValue(s, s.values[i] ?? null)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

function showValue(series: ChartSeries, value: string | null): ReactNode {
  if (value === null) return '';
  return series.show ? series.show(value) : formatCredits(value);
}
