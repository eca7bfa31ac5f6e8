/**
 * `SET #a = :a, #b = :b` for the defined fields of a patch, plus `updatedAt`. Names are always
 * aliased, since attribute names such as `name` are DynamoDB reserved words.
 */
export const setFields = (patch: Record<string, unknown>, updatedAt = new Date().toISOString()) => {
  const fields = Object.entries({ ...patch, updatedAt }).filter(([, value]) => value !== undefined);
  return {
    UpdateExpression: `SET ${fields.map(([name]) => `#${name} = :${name}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(fields.map(([name]) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(fields.map(([name, value]) => [`:${name}`, value])),
  };
};
