import { workflow as pb } from '@pim/contracts';
import { parseListQuery } from '@pim/query';
import { Workflow, workflowFromWire, type WorkflowView } from '@pim/resources';
import { createRpcClient, toProtoListQuery } from '@pim/rpc';

/** What the orders app reads of the workflow app: a workflow by id or code, or the default one. */
export interface WorkflowsLink {
  /** The live workflow with this id or code; undefined when there is none. A workflow app that does not answer is a 503. */
  find(by: { id?: string; code?: string }): Promise<WorkflowView | undefined>;
  /** The live default workflow, if any. */
  defaultOne(): Promise<WorkflowView | undefined>;
  close(): void;
}

const DEADLINE_MS = 5_000;
const DEFAULT_QUERY = toProtoListQuery(parseListQuery(Workflow.listDecl, { default: 'true', limit: '1' }));

/** A workflow message as the API shows a workflow (what an order keeps a copy of). */
const viewOf = (m: pb.Workflow): WorkflowView => workflowFromWire(m as never) as unknown as WorkflowView;

/** The workflow app's WorkflowsService at `address` (`host:port`), connected on first use. */
export function workflowsLink(address: string): WorkflowsLink {
  let client: ReturnType<typeof createRpcClient<pb.WorkflowsServiceClient>> | undefined;
  const workflows = () =>
    (client ??= createRpcClient(pb.WorkflowsServiceClient, { service: 'workflow', address, deadlineMs: DEADLINE_MS }));
  return {
    async find({ id, code }) {
      const { data } = await workflows().batchGetWorkflows({
        ids: id === undefined ? [] : [id],
        codes: code === undefined ? [] : [code],
      });
      return data[0] && viewOf(data[0]);
    },
    async defaultOne() {
      const { data } = await workflows().listWorkflows({ query: DEFAULT_QUERY });
      return data[0] && viewOf(data[0]);
    },
    close: () => client?.close(),
  };
}

/**
 * The same link answering each question once: for the span of one request (a bulk upsert names the
 * same workflow a thousand times), never longer, so an order still copies the workflow as it is.
 */
export function onceEach(link: WorkflowsLink): WorkflowsLink {
  const answers = new Map<string, Promise<WorkflowView | undefined>>();
  const once = (key: string, ask: () => Promise<WorkflowView | undefined>) => {
    let answer = answers.get(key);
    if (!answer) {
      answer = ask();
      answers.set(key, answer);
      // A failed question (the workflow app did not answer) is asked again by the next item.
      answer.catch(() => answers.delete(key));
    }
    return answer;
  };
  return {
    find: (by) => once(`find:${by.id ?? ''}:${by.code ?? ''}`, () => link.find(by)),
    defaultOne: () => once('default', () => link.defaultOne()),
    close: () => undefined,
  };
}
