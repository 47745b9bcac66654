export { LocalFileStorage } from './local';
export { checkKey, type FileStorage, type StoredFile } from './storage';
