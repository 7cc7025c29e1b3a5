/**
 * A list of rows edited in place (graduated tiers, per-model costs): one input per column, a
 * Remove button per row and an Add button; each input can name the API field its errors are under.
 */
import { Field } from './form';

export type RowColumn<T> = {
  key: keyof T & string;
  label: string;
  /** A number box (decimal text kept as typed) rather than a text box. */
  number?: boolean;
  placeholder?: string;
  /** The API field of row `i`'s value, for its messages (`value.pricing.tiers[0].price_per_unit`). */
  field?: (i: number) => string;
};

type Props<T extends Record<string, string>> = {
  /** What one row is ("tier"): the buttons say "Add tier", "Remove tier 2". */
  noun: string;
  rows: T[];
  columns: RowColumn<T>[];
  blank: T;
  onChange: (rows: T[]) => void;
  /** The fewest rows kept (Remove is hidden below it). */
  min?: number;
};

export function RowsEditor<T extends Record<string, string>>({ noun, rows, columns, blank, onChange, min = 0 }: Props<T>) {
  const update = (i: number, key: keyof T, value: string) => onChange(rows.map((row, j) => (j === i ? { ...row, [key]: value } : row)));
  return (
    <fieldset className="rows-editor">
      <legend>{noun[0]!.toUpperCase() + noun.slice(1)}s</legend>
      {rows.map((row, i) => (
        <div className="row" key={i}>
          {columns.map((c) => (
            <Field key={c.key} label={`${c.label} (${noun} ${i + 1})`} name={c.field?.(i)}>
              <input
                type={c.number ? 'number' : 'text'}
                min={c.number ? 0 : undefined}
                step={c.number ? 'any' : undefined}
                placeholder={c.placeholder}
                value={row[c.key]}
                onChange={(e) => update(i, c.key, e.target.value)}
              />
            </Field>
          ))}
          {rows.length > min ? (
            <button type="button" className="secondary" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              Remove {noun} {i + 1}
            </button>
          ) : null}
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => onChange([...rows, { ...blank }])}>
        Add {noun}
      </button>
    </fieldset>
  );
}
