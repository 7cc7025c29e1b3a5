/**
 * Confirmation for an action that moves money or ends access (rotate or revoke a key, mark an
 * invoice paid): a modal `alertdialog` (the native <dialog>, so focus is trapped and Escape
 * cancels) that names the consequence, focuses the safe choice first and gives focus back to the
 * button that opened it.
 */
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useCan } from '../auth';

export type ConfirmRequest = {
  /** The question, naming what is acted on ("Revoke ck_test_…a1b2?"). */
  title: string;
  /** The consequence ("It stops working at once."). */
  body?: ReactNode;
  /** The confirming button's text ("Revoke key"). */
  confirm: string;
  onConfirm: () => void;
};

export function ConfirmDialog({ request, onClose }: { request: ConfirmRequest | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !request) return;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    cancelRef.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
      opener?.focus?.();
    };
  }, [request]);
  if (!request) return null;
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={request.body ? bodyId : undefined}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{request.title}</h2>
      {request.body ? <p id={bodyId}>{request.body}</p> : null}
      <div className="row">
        <button ref={cancelRef} type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            onClose();
            request.onConfirm();
          }}
        >
          {request.confirm}
        </button>
      </div>
    </dialog>
  );
}

/** `ask(request)` opens the dialog; render `dialog` once in the component. */
export function useConfirm(): { ask: (request: ConfirmRequest) => void; dialog: ReactNode } {
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const close = useCallback(() => setRequest(null), []);
  return { ask: setRequest, dialog: <ConfirmDialog request={request} onClose={close} /> };
}

/**
 * A button that asks first (`ask` from useConfirm): `name` is its accessible name when the visible
 * text is not enough to tell rows apart ("Revoke pt_test_…a1b2"). Disabled, saying which role it
 * needs, where the operator's role may not change things on the page (useCan).
 */
export function ConfirmButton({ ask, request, name, disabled, children }: { ask: (request: ConfirmRequest) => void; request: ConfirmRequest; name?: string; disabled?: boolean; children: ReactNode }) {
  const can = useCan();
  return (
    <button type="button" className="secondary" disabled={disabled || !can.allowed} title={can.why} aria-label={name} onClick={() => ask(request)}>
      {children}
    </button>
  );
}
