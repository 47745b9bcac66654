import { migrateApp } from '@pim/app';
import { readConfig } from './config';
import { dataSourceOptions } from './data-source';

void migrateApp({ name: 'io-jobs', dir: __dirname, config: readConfig, dataSource: dataSourceOptions });
