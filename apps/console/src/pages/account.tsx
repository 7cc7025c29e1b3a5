import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api';
import { ErrorNote, PageHeader, QueryView, SecretOnce } from '../ui';

/** The tenant key, masked; rotation shows the new key once and revokes every earlier one. */
export default function AccountPage() {
  const queryClient = useQueryClient();
  const key = useQuery({ queryKey: ['tenant-key'], queryFn: () => unwrap(api.GET('/api/v1/account/api-key')) });
  const [fresh, setFresh] = useState<string | null>(null);
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/account/api-key')),
    onSuccess: (rotated) => {
      setFresh(rotated.apiKey);
      void queryClient.invalidateQueries({ queryKey: ['tenant-key'] });
    },
  });

  return (
    <section>
      <PageHeader title="Account & keys" />
      <h2>Tenant key</h2>
      <p className="muted">The key your backend sends to the Client API (<code>Authorization: Bearer sk_…</code>).</p>
      <QueryView query={key} what="the tenant key">
        {(data) => (
          <p>
            Current key: <code data-testid="masked-key">{data.apiKey}</code>
          </p>
        )}
      </QueryView>
      {fresh ? <SecretOnce label="New tenant key" value={fresh} onDismiss={() => setFresh(null)} /> : null}
      <button
        type="button"
        disabled={rotate.isPending}
        onClick={() => {
          if (window.confirm('Rotate the tenant key? Every earlier tenant key stops working at once.')) rotate.mutate();
        }}
      >
        Rotate tenant key
      </button>
      <ErrorNote error={rotate.error} title="Rotation failed" />
    </section>
  );
}
