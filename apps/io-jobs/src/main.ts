import { runApp } from '@pim/app';
import { ioJobsApp } from './app';

void runApp(ioJobsApp);
