export { createCore, type Core, type CoreOptions, type components, type operations, type paths } from './core.js';
