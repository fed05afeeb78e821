import { render } from 'preact';
import { App } from './app.js';
import { loadAppConfig } from './config.js';
import './styles.css';

const root = document.getElementById('app');
if (root === null) throw new Error('index.html lacks #app');

loadAppConfig().then(
  (config) => render(<App config={config} />, root),
  (error: unknown) => {
    const message = document.createElement('p');
    message.setAttribute('role', 'alert');
    message.textContent = `PoolParty could not start: ${(error as Error).message}`;
    root.replaceChildren(message);
  },
);
