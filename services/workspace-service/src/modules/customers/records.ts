import type { CustomerMe, CustomerRecord } from '@holdfast/contracts';
import type { CustomerRow, CustomerWithWallet } from './repository.js';

/** The audit actions of customers: the catalogue's (@holdfast/contracts). */
export { CUSTOMER_AUDIT } from '@holdfast/contracts';

/** What a customer is, as its record and its audit entries show it (no wallet, no password). */
function profileOf(row: CustomerRow) {
  return {
    workspaceId: row.workspaceId,
    externalId: row.externalId,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    phoneNumber: row.phoneNumber,
    dateOfBirth: row.dateOfBirth,
    address: row.address,
    city: row.city,
    state: row.state,
    postalCode: row.postalCode,
    country: row.country,
    status: row.status,
  };
}

export function toCustomerRecord(row: CustomerWithWallet): CustomerRecord {
  return {
    id: row.id,
    ...profileOf(row),
    walletAddress: row.walletAddress,
    walletLinkedAt: row.walletLinkedAt?.toISOString() ?? null,
    emailVerified: row.emailVerified,
    hasPassword: row.passwordHash !== null,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toCustomerMe(row: CustomerWithWallet): CustomerMe {
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    walletAddress: row.walletAddress,
    walletLinkedAt: row.walletLinkedAt?.toISOString() ?? null,
    emailVerified: row.emailVerified,
    status: row.status,
  };
}

/** The fields of a customer an audit entry shows (never the password hash). */
export function auditedCustomer(row: CustomerRow): Record<string, unknown> {
  return {
    ...profileOf(row),
    metadata: row.metadata,
  };
}
