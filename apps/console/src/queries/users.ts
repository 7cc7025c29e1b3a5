/** The account's operators (owner only, ADR 0034): list, invite with a one-time password, change role, disable. */
import { useQuery } from '@tanstack/react-query';
import type { operations } from '@tally/client';
import { api, unwrap, type Schemas } from '../api';
import { useApiMutation } from './mutation';

export type Operator = Schemas['Operator'];
type Invite = operations['inviteUser']['requestBody']['content']['application/json'];
type Update = operations['updateUser']['requestBody']['content']['application/json'];

export const userKeys = {
  all: ['users'] as const,
};

export function useUsers() {
  return useQuery({ queryKey: userKeys.all, queryFn: () => unwrap(api.GET('/api/v1/users')) });
}

/** Invites an operator; the answer's one-time password is handed to `onInvited` (shown once). */
export function useInviteUser(onInvited: (invited: { user: Operator; password: string }) => void) {
  return useApiMutation((body: Invite) => unwrap(api.POST('/api/v1/users', { body })), {
    invalidates: [userKeys.all],
    onSuccessOnly: true,
    onSuccess: onInvited,
  });
}

/** Changes an operator's role or disables/enables it (disabling ends its sessions; 409 when no active owner would be left). */
export function useUpdateUser() {
  return useApiMutation(
    ({ userId, ...body }: Update & { userId: string }) => unwrap(api.PATCH('/api/v1/users/{userId}', { params: { path: { userId } }, body })),
    { invalidates: [userKeys.all] },
  );
}
