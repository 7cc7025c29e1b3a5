/**
 * The console's one table: columns, rows, the states of the read behind it (loading, the API's
 * error, empty with the next step) and paging by the API's offset/limit/total.
 */
import { Fragment, type ReactNode } from 'react';
import { formatCount } from '../format';
import { EmptyState, ErrorNote, Loading, type NextStep } from './ui';

export type Column<T> = {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** A figure: right-aligned, tabular digits. */
  num?: boolean;
  /** A column without a visible header (actions): the header is read to screen readers only. */
  hiddenHeader?: boolean;
};

/** The API's paging of a list (`pagination` of a page answer). */
export type Paging = { offset: number; limit: number; total: number; hasMore: boolean };

type State = { isPending: boolean; error: unknown };

export type DataTableProps<T> = {
  /** The table's accessible name. */
  label: string;
  columns: Column<T>[];
  rows: T[] | undefined;
  rowKey: (row: T) => string;
  /** Shown instead of the table when there is no row: why, and what to do next. */
  empty: ReactNode;
  next?: NextStep;
  /** The read behind the rows, for its loading and error states. */
  query?: State;
  /** What the rows are, for "Loading …" and "Could not load …". */
  what?: string;
  /** A row shown under a row (an expanded receipt), spanning every column. */
  detail?: (row: T) => ReactNode;
  footer?: ReactNode;
  paging?: PagerProps;
  className?: (row: T) => string | undefined;
};

export function DataTable<T>(props: DataTableProps<T>) {
  const { label, columns, rows, rowKey, query, what = label.toLowerCase() } = props;
  if (query?.isPending) return <Loading what={what} />;
  if (query?.error) return <ErrorNote error={query.error} title={`Could not load ${what}`} />;
  if (!rows || rows.length === 0) return <EmptyState next={props.next}>{props.empty}</EmptyState>;
  return (
    <>
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" className={c.num ? 'num' : undefined}>
                {c.hiddenHeader ? <span className="visually-hidden">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const detail = props.detail?.(row);
            return (
              <Fragment key={rowKey(row)}>
                <tr className={props.className?.(row)}>
                  {columns.map((c, i) => (
                    <td key={i} className={c.num ? 'num' : undefined}>
                      {c.cell(row)}
                    </td>
                  ))}
                </tr>
                {detail ? (
                  <tr>
                    <td colSpan={columns.length}>{detail}</td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
        {props.footer ? <tfoot>{props.footer}</tfoot> : null}
      </table>
      {props.paging ? <Pager {...props.paging} /> : null}
    </>
  );
}

type PagerProps = Paging & { onGo: (offset: number) => void; /** A test id on the range ("1–25 of 31"). */ testId?: string };

/** Previous / "26–31 of 31" / Next over the API's offset paging. */
export function Pager({ offset, limit, total, hasMore, onGo, testId }: PagerProps) {
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="row pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={offset === 0} onClick={() => onGo(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span role="status" data-testid={testId}>
        {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <button type="button" className="secondary" disabled={!hasMore} onClick={() => onGo(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
