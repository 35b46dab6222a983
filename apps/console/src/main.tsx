// The console's entry: styles (Pico CSS, uPlot's) and the app. Built by Vite into dist/.
import '@picocss/pico/css/pico.min.css';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) render(<App />, root);
