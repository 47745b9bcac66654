export * from './database';
export * from './nats';
export * from './attribute-types';
export { contractProblems, recordRpcs, rpcsOf, type ContractTarget } from './contract';
