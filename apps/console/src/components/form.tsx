/**
 * The console's one form: a labelled form whose submit button follows the mutation (disabled while
 * it runs, "Saved." after), with the API's refusal shown where it belongs. The error envelope
 * (`{ success: false, error: { code, message, fields?: [{ field, message }], requestId } }`) names
 * the fields it refuses: a `Field` with that `name` shows its messages under the input; a refusal
 * no Field of the form claims (a cross-field rule, a conflict) is shown above the button's row,
 * with the message, every field message and the requestId.
 *
 * A form a role cannot use (useCan: `access`, or by default what changing things on the page needs)
 * is shown disabled, saying which role it needs; the server refuses it anyway.
 */
import { createContext, useContext, useRef, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../api';
import { useCan } from '../auth';
import type { OperatorAccess } from '../roles';
import { ErrorNote } from './ui';

/** What a form shows of its mutation: whether it runs, whether it succeeded, and how it failed. */
export type Submission = { isPending: boolean; isSuccess?: boolean; error: unknown };

/** The messages of the envelope's `fields[]` for `field` (and its nested fields, `field.x`). */
export function fieldMessages(error: unknown, field: string): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.fields.filter((f) => f.field === field || f.field.startsWith(`${field}.`)).map((f) => f.message);
}

type FormState = { error: unknown; names: Set<string> };
const FormContext = createContext<FormState>({ error: null, names: new Set() });

type FormProps = {
  /** The form's accessible name. */
  label: string;
  submission: Submission;
  onSubmit: () => void;
  /** The submit button's text, and its text while the mutation runs (default: the same). */
  submit: string;
  pending?: string;
  /** The title of the refusal ("Feature not created"). */
  failed: string;
  /** Says "Saved." once the mutation succeeded (settings forms that stay on the page). */
  saved?: boolean;
  /** `inline-form` (a row of fields, the default) or `form-grid card` (a settings form). */
  layout?: 'inline' | 'grid';
  /** Shown after the button (a hint, a price), before the refusal. */
  after?: ReactNode;
  /** What using the form needs (roles.ts); default: the page's `change` in the route table. A filter is `read`. */
  access?: OperatorAccess;
  children: ReactNode;
};

export function Form({ label, submission, onSubmit, submit, pending, failed, saved, layout = 'inline', after, access, children }: FormProps) {
  const can = useCan(access);
  // The names of this form's Fields, gathered as they render (before the refusal below them).
  const names = useRef(new Set<string>()).current;
  function handle(event: FormEvent) {
    event.preventDefault();
    onSubmit();
  }
  return (
    <FormContext.Provider value={{ error: submission.error, names }}>
      <form className={layout === 'grid' ? 'form-grid card' : 'inline-form'} onSubmit={handle} aria-label={label}>
        <fieldset className="gate" disabled={!can.allowed} title={can.why}>
          {children}
          <div className="row">
            <button type="submit" disabled={submission.isPending} title={can.why}>
              {submission.isPending && pending ? pending : submit}
            </button>
            {saved && submission.isSuccess ? <span role="status">Saved.</span> : null}
            {after}
            {can.why ? <span className="muted small">{can.why}.</span> : null}
          </div>
        </fieldset>
        <Refusal title={failed} />
      </form>
    </FormContext.Provider>
  );
}

/** The refusal no Field of the form shows, or a pointer to the fields that do. */
function Refusal({ title }: { title: string }) {
  const { error, names } = useContext(FormContext);
  if (!error) return null;
  const claimed = [...names].some((name) => fieldMessages(error, name).length > 0);
  if (!claimed) return <ErrorNote error={error} title={title} />;
  return <p className="muted small">{title}: see the messages above.</p>;
}

/** A labelled input; with `name`, the envelope's messages for that field show under it. */
export function Field({ label, name, className, children }: { label: ReactNode; name?: string; className?: string; children: ReactNode }) {
  const { error, names } = useContext(FormContext);
  if (name) names.add(name);
  return (
    <label className={className}>
      {label}
      {children}
      {name
        ? fieldMessages(error, name).map((m) => (
            <span key={m} className="field-error" role="alert">
              {m}
            </span>
          ))
        : null}
    </label>
  );
}

/** A checkbox with its label after it. */
export function Check({ label, checked, onChange }: { label: ReactNode; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label className="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} /> {label}
    </label>
  );
}

/** A select of fixed choices (an enum of the API: a provider, a grant type), each shown as its value. */
export function Choice<T extends string>({ value, options, onChange }: { value: T; options: readonly T[]; onChange: (value: T) => void }) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value as T)}>
      {options.map((o) => (
        <option key={o}>{o}</option>
      ))}
    </select>
  );
}
