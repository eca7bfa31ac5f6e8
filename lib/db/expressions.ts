/**
 * `SET #a = :a, #b = :b` for the defined fields of a patch, plus `updatedAt`, and `REMOVE #c` for
 * those set to null (a null field is stored absent, lib/db/entity.ts). Names are always aliased,
 * since attribute names such as `name` are DynamoDB reserved words.
 */
export const setFields = (patch: Record<string, unknown>, updatedAt = new Date().toISOString()) => {
  const defined = Object.entries({ ...patch, updatedAt }).filter(([, value]) => value !== undefined);
  const fields = defined.filter(([, value]) => value !== null);
  const removed = defined.filter(([, value]) => value === null);
  return {
    UpdateExpression: `SET ${fields.map(([name]) => `#${name} = :${name}`).join(', ')}${
      removed.length > 0 ? ` REMOVE ${removed.map(([name]) => `#${name}`).join(', ')}` : ''
    }`,
    ExpressionAttributeNames: Object.fromEntries(defined.map(([name]) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(fields.map(([name, value]) => [`:${name}`, value])),
  };
};
