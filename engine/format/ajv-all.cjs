// ajv and the parts of it the engine uses, as one CommonJS module loaded on
// first use (engine/format/ajv.ts). The build bundles this file on its own
// next to each bundle, so a command that never compiles a schema never
// parses ajv, and one that does loads one file instead of a hundred.
'use strict';
module.exports = {
  Ajv: require('ajv').Ajv,
  Ajv2020: require('ajv/dist/2020').Ajv2020,
  addFormats: require('ajv-formats').default,
  standaloneCode: require('ajv/dist/standalone').default,
};
