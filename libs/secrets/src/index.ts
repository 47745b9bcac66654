export { SEALED_TYP, openJwe, parseJwe, sealJwe, type ParsedJwe, type SealedHeader } from './jwe';
export {
  BUILT_IN_KEY_ID,
  KEY_ID,
  Keyring,
  SECRETS_KEYS_VARIABLE,
  UnsealError,
  builtInDevelopmentKeyring,
  isSealed,
  newSecretsKey,
  parseSecretsKeys,
  sealedKeyId,
  type OperatorKey,
  type UnsealReason,
} from './keyring';
export {
  pagedSealedStore,
  RESEAL_INTERVAL_MS,
  RESEAL_PAGE,
  ResealCounter,
  ResealLoop,
  type PagedSealedRecords,
  type ResealReport,
  type ResealTally,
  type SealedStore,
} from './reseal';
export { MAKE_A_KEY, requireOperatorKeys, secretsKeysSetting, type WithOperatorKeys } from './settings';
