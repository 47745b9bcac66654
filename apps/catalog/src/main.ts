import { runApp } from '@pim/app';
import { catalogApp } from './app';

void runApp(catalogApp);
