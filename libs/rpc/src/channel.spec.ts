import { targetHostPort } from './channel';

describe('targetHostPort', () => {
  it.each([
    ['127.0.0.1:50051', { host: '127.0.0.1', port: 50051 }],
    ['localhost:50051', { host: 'localhost', port: 50051 }],
    ['catalog', { host: 'catalog' }],
    ['ipv4:127.0.0.1:50051,127.0.0.1:50071', { host: '127.0.0.1', port: 50051 }],
    ['dns:///catalog.pim.svc:50051', { host: 'catalog.pim.svc', port: 50051 }],
    ['dns://8.8.8.8/catalog:50051', { host: 'catalog', port: 50051 }],
    ['ipv6:[::1]:50051', { host: '::1', port: 50051 }],
  ])('%s', (target, expected) => {
    expect(targetHostPort(target)).toEqual(expected);
  });
});
