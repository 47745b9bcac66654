import { runApp } from '@pim/app';
import { workflowApp } from './app';

void runApp(workflowApp);
