import { useState } from 'react';
import type { Schemas } from '../../../api';
import { ConfirmButton, useConfirm } from '../../../components/confirm-dialog';
import { DataTable, type Column } from '../../../components/data-table';
import { Time } from '../../../components/figures';
import { ErrorNote } from '../../../components/ui';
import { useDeleteUnit, useSpendUnits } from '../../../queries/spend';
import { treeOrder } from '../tree';
import { UnitForm } from './unit-form';

type Unit = Schemas['SpendUnit'];
type Row = { row: Unit; depth: number };

/** The units in their tree, each editable in place (the form opens under its row) and deletable after a confirmation. */
export function UnitTree() {
  const units = useSpendUnits();
  const remove = useDeleteUnit();
  const [editing, setEditing] = useState<string | null>(null);
  const { ask, dialog } = useConfirm();
  const nameOf = (id: string | null) => units.data?.find((u) => u.id === id)?.name;
  const deleting = (u: Unit) => ({
    title: `Delete ${u.name}?`,
    body: `Its attribution rules and its budget are deleted, and its children move up to ${nameOf(u.parentId) ?? 'the top level'}. Its spend becomes unattributed.`,
    confirm: 'Delete unit',
    onConfirm: () => remove.mutate(u.id),
  });
  const columns: Column<Row>[] = [
    { header: 'Unit', cell: ({ row, depth }) => <span style={{ paddingLeft: `${depth * 1.25}rem` }}>{row.name}</span> },
    { header: 'Type', cell: ({ row }) => row.type },
    { header: 'Details', cell: ({ row }) => [row.email, row.githubLogin && `@${row.githubLogin}`].filter(Boolean).join(' · ') },
    { header: 'Created', cell: ({ row }) => <Time iso={row.createdAt} /> },
    {
      header: 'Actions',
      hiddenHeader: true,
      cell: ({ row }) => (
        <span className="row">
          <button type="button" className="secondary" aria-label={`Edit ${row.name}`} aria-expanded={editing === row.id} onClick={() => setEditing(editing === row.id ? null : row.id)}>
            Edit
          </button>
          <ConfirmButton ask={ask} name={`Delete ${row.name}`} request={deleting(row)}>
            Delete
          </ConfirmButton>
        </span>
      ),
    },
  ];
  return (
    <>
      <DataTable
        label="Spend units"
        query={units}
        columns={columns}
        rows={units.data ? treeOrder(units.data, (u) => u.id) : undefined}
        rowKey={({ row }) => row.id}
        empty="No spend unit yet: create a team, project or person with the form below, then add the rules that attribute spend to it."
        detail={({ row }) => (editing === row.id ? <UnitForm key={row.id} unit={row} onDone={() => setEditing(null)} /> : null)}
      />
      <ErrorNote error={remove.error} title="Unit not deleted" />
      {dialog}
    </>
  );
}
