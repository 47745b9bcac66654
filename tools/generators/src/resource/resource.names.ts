import { codeNames, collectionInfo } from '@pim/resources';
import { appNames, type AppNames } from '../app/names';

/** Every spelling of a resource's name the generated files need, and its app's. */
export interface ResourceNames {
  app: AppNames;
  /** The collection and table: `users_groups`. */
  collection: string;
  /** In words: `users group` / `users groups`. */
  label: string;
  labels: string;
  /** The label with its article: `a users group`, `an order`. */
  aLabel: string;
  /** Code names: `UsersGroup` / `UsersGroups` (messages, services, the declaration). */
  one: string;
  many: string;
  /** camelCase of many: `usersGroups` (client keys). */
  manyCamel: string;
  /** camelCase of one: `usersGroup` (the record resource). */
  oneCamel: string;
  /** Folder and file base: `users-group`. */
  folder: string;
}

/** The names of a declared collection (it must be in COLLECTIONS); its app defaults to the collection's owner. */
export function resourceNames(collection: string, app?: string): ResourceNames {
  const info = collectionInfo(collection);
  const { one, many } = codeNames(info);
  const lower = (s: string) => `${s[0].toLowerCase()}${s.slice(1)}`;
  return {
    app: appNames(app ?? info.app),
    collection,
    label: info.label,
    labels: info.labels,
    aLabel: `${/^[aeiou]/.test(info.label) ? 'an' : 'a'} ${info.label}`,
    one,
    many,
    manyCamel: lower(many),
    oneCamel: lower(one),
    folder: info.label.replace(/ /g, '-'),
  };
}
