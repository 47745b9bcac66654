export { createTestDatabase, testServerUrl, type TestDatabase } from './database';
export { createTestStream, testNatsUrl, type StreamMessage, type TestStream } from './nats';
export { BAD_VALUES, EVERY_TYPE, EVERY_TYPE_OPTIONS, GOOD_VALUES, STORED_GOOD_VALUES } from './attribute-types';
export { contractProblems, recordRpcs, rpcsOf, type ContractTarget } from './contract';
export { freePort, startAppProcess, type AppProcess } from './app-process';
export { startReceiver, type ReceivedRequest, type ReceiverAnswer, type TestReceiver } from './receiver';
