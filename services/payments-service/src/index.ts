export { type PaymentsConfig, paymentsConfigFrom } from './config.js';
export { createPaymentsService } from './service.js';
