import type { FuzzCase } from './cases';
import type { FuzzResponse } from './http';
import { requestIdLine } from './run';

const outcome = (sent: string, answered?: string) => ({
  c: { request: { method: 'GET', path: '/', headers: { 'x-request-id': sent } } } as unknown as FuzzCase,
  res: {
    status: 400,
    headers: answered ? { 'x-request-id': answered } : {},
    body: Buffer.alloc(0),
    ms: 1,
  } as FuzzResponse,
});

describe('the request ids of a batch', () => {
  it("names a case by the id it sent, and by the gateway's own when the gateway gave another", () => {
    expect(requestIdLine(outcome('fz-s-3', 'fz-s-3'))).toBe('fz-s-3');
    expect(requestIdLine(outcome('fz-s-4'))).toBe('fz-s-4');
    expect(requestIdLine(outcome('fz-s-5', 'b1c2'))).toBe('fz-s-5 (answered as b1c2)');
  });
});
