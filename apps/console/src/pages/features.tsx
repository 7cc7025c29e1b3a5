import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api';
import { Empty, ErrorNote, PageHeader, QueryView, StatusBadge, Time } from '../ui';

export default function FeaturesPage() {
  const features = useQuery({ queryKey: ['features'], queryFn: () => unwrap(api.GET('/api/v1/monetization/features')) });
  return (
    <section>
      <PageHeader title="Features" />
      <NewFeatureForm />
      <QueryView query={features} what="features">
        {(list) =>
          list.length === 0 ? (
            <Empty>No features yet: create the first one above.</Empty>
          ) : (
            <table>
              <caption className="visually-hidden">Features</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((f) => (
                  <tr key={f.id}>
                    <td>
                      {f.name}
                      {f.description ? <div className="muted small">{f.description}</div> : null}
                    </td>
                    <td>
                      <code>{f.key}</code>
                    </td>
                    <td>{f.featureType}</td>
                    <td>
                      <StatusBadge status={f.isEnabled ? 'ENABLED' : 'DISABLED'} />
                    </td>
                    <td>
                      <Time iso={f.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </section>
  );
}

function NewFeatureForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/monetization/features', { body: { name, key, ...(description ? { description } : {}) } })),
    onSuccess: () => {
      setName('');
      setKey('');
      setDescription('');
      void queryClient.invalidateQueries({ queryKey: ['features'] });
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label="New feature">
      <label>
        Name
        <input name="name" required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Key
        <input name="key" required value={key} onChange={(e) => setKey(e.target.value)} />
      </label>
      <label>
        Description
        <input name="description" value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <button type="submit" disabled={create.isPending}>
        Create feature
      </button>
      <ErrorNote error={create.error} title="Feature not created" />
    </form>
  );
}
