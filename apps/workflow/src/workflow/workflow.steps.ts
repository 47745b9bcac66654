import { newId } from '@pim/ids';
import type { WorkflowStepInput, WorkflowStepView } from '@pim/resources';

/**
 * A workflow's steps as stored and shown: every list and flag filled in (empty, `false`; a status
 * `enabled` unless it says otherwise, `outcome` empty), and each status with an `_id` — the one it
 * was given, else the one the status of the same code had before this write (so replacing a
 * workflow keeps its statuses' ids), else a new one.
 */
export function storedSteps(steps: WorkflowStepInput[], prev: WorkflowStepView[] = []): WorkflowStepView[] {
  const prevIds = new Map(prev.flatMap((s) => s.status.map((st) => [st.code, st._id] as const)));
  return steps.map((s) => ({
    ...s,
    users_groups: (s.users_groups ?? []).map((g) => ({
      ...g,
      users: (g.users ?? []).map((u) => ({ ...u, roles: u.roles ?? [] })),
    })),
    users: s.users ?? [],
    status: (s.status ?? []).map((st) => ({
      ...st,
      _id: st._id ?? prevIds.get(st.code) ?? newId(),
      tags: st.tags ?? [],
      notify: st.notify ?? false,
      enabled: st.enabled ?? true,
      outcome: st.outcome ?? '',
      moves_to: st.moves_to ?? [],
    })),
    scopes: s.scopes ?? [],
    locker: s.locker ?? false,
    editable: s.editable ?? false,
  }));
}
