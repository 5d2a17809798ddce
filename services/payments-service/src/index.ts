export { type PaymentsConfig, paymentsConfigFrom } from './config.js';
export { createPaymentsService, type PaymentsOverrides } from './service.js';
