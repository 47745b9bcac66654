export * from './database';
export * from './nats';
export * from './attribute-types';
export { contractProblems, type ContractTarget } from './contract';
