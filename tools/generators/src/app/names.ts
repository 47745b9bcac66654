/** Every spelling of an app's name the generated files need. */
export interface AppNames {
  /** kebab case, as given: `io-jobs` (folder, npm start, docs, Kubernetes). */
  name: string;
  /** Postgres schema: `io_jobs`. */
  schema: string;
  /** Proto package segment (`pim.<proto>.v1`) and file name: `iojobs`. */
  proto: string;
  /** Environment variable prefix: `IO_JOBS` (`IO_JOBS_GRPC_PORT`). */
  env: string;
  /** camelCase: `ioJobs` (PROTO_FILES key, contracts namespace, the exported app). */
  camel: string;
  /** PascalCase: `IoJobs` (type and class names). */
  pascal: string;
}

/** The spellings of a kebab-case app name. */
export function appNames(name: string): AppNames {
  const words = name.split('-');
  const cap = (w: string) => `${w[0].toUpperCase()}${w.slice(1)}`;
  return {
    name,
    schema: words.join('_'),
    proto: words.join(''),
    env: words.join('_').toUpperCase(),
    camel: `${words[0]}${words.slice(1).map(cap).join('')}`,
    pascal: words.map(cap).join(''),
  };
}
