import { useConfirm } from '../../components/confirm-dialog';
import { useUpdateUser, type Operator } from '../../queries/users';
import { isDemotion, type OperatorRole } from '../../roles';

/**
 * The rows' role change and disable/enable, sharing one mutation (so the API's refusal, such as the
 * 409 when no active owner would be left, shows once above the table) and one confirmation: a
 * demotion and a disabling (which ends the user's sessions) are asked first.
 */
export function useUserActions() {
  const update = useUpdateUser();
  const { ask, dialog } = useConfirm();

  function changeRole(user: Operator, role: OperatorRole) {
    const apply = () => update.mutate({ userId: user.id, role });
    if (!isDemotion(user.role, role)) return apply();
    ask({ title: `Make ${user.username} ${role}?`, body: `${user.username} loses what ${user.role} may do, from their next request on.`, confirm: `Make ${role}`, onConfirm: apply });
  }

  function toggle(user: Operator) {
    const disabled = !user.disabled;
    const act = disabled ? 'Disable' : 'Enable';
    const body = disabled ? `${user.username} cannot sign in any more, and every open session of theirs ends at once.` : `${user.username} can sign in again with their password.`;
    ask({ title: `${act} ${user.username}?`, body, confirm: act, onConfirm: () => update.mutate({ userId: user.id, disabled }) });
  }

  return { update, dialog, changeRole, toggle };
}
