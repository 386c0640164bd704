// GET /api/docs/: renders the OpenAPI document with Redoc (src/web/api-docs.ts says why Redoc and
// what the page's CSP allows). A file of its own: the pages' CSP refuses inline scripts.
//
// Redoc writes no request examples of its own: each operation gets a curl command here
// (`x-codeSamples`, which Redoc shows beside the operation), with the token header when the
// operation takes one.
/* global document, window, location, getComputedStyle */
(function () {
  'use strict';
  var root = document.getElementById('api-reference');
  if (!root || typeof window.Redoc !== 'object') return;
  var METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

  function quote(text) {
    return "'" + String(text).replace(/'/g, "'\\''") + "'";
  }

  function resolve(spec, node) {
    var seen = 0;
    while (node && typeof node.$ref === 'string' && node.$ref.indexOf('#/') === 0 && seen++ < 20) {
      node = node.$ref
        .slice(2)
        .split('/')
        .reduce(function (at, key) {
          return at ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
        }, spec);
    }
    return node || {};
  }

  /** A small example of a schema: its example, default or first allowed value, else one of its type. */
  function sample(spec, schema, depth) {
    schema = resolve(spec, schema);
    if (schema.examples && schema.examples.length) return schema.examples[0];
    if (schema.example !== undefined) return schema.example;
    if (schema.default !== undefined) return schema.default;
    if (schema.const !== undefined) return schema.const;
    if (schema.enum && schema.enum.length) return schema.enum[0];
    var variants = schema.anyOf || schema.oneOf;
    if (variants && variants.length) {
      var chosen =
        variants.filter(function (v) {
          return resolve(spec, v).type !== 'null';
        })[0] || variants[0];
      return sample(spec, chosen, depth);
    }
    var type = Array.isArray(schema.type)
      ? schema.type.filter(function (t) {
          return t !== 'null';
        })[0]
      : schema.type;
    if (type === 'object' || (type === undefined && schema.properties)) {
      var out = {};
      if (depth > 3) return out;
      var required = schema.required || Object.keys(schema.properties || {});
      required.forEach(function (name) {
        var property = (schema.properties || {})[name];
        if (property && !resolve(spec, property).readOnly) out[name] = sample(spec, property, depth + 1);
      });
      return out;
    }
    if (type === 'array') return depth > 3 ? [] : [sample(spec, schema.items || {}, depth + 1)];
    if (type === 'integer' || type === 'number') return schema.minimum !== undefined ? schema.minimum : 1;
    if (type === 'boolean') return true;
    if (schema.format === 'date-time') return '2024-01-01T18:00:00Z';
    if (schema.format === 'date') return '2024-01-01';
    if (schema.format === 'uri') return location.origin + '/';
    return 'string';
  }

  function tokenHeader(spec, operation) {
    var security = operation.security || spec.security || [];
    var schemes = (spec.components && spec.components.securitySchemes) || {};
    // An empty requirement makes the token optional: the example goes without.
    if (
      security.some(function (requirement) {
        return Object.keys(requirement).length === 0;
      })
    )
      return null;
    for (var i = 0; i < security.length; i++) {
      for (var name in security[i]) {
        var scheme = schemes[name];
        if (scheme && scheme.type === 'apiKey' && scheme.in === 'header') return scheme.name + ': Token <secret>';
        if (scheme && scheme.type === 'http') return 'Authorization: ' + (scheme.scheme === 'bearer' ? 'Bearer' : 'Basic') + ' <secret>';
      }
    }
    return null;
  }

  function curl(spec, base, path, method, item, operation) {
    var parameters = (item.parameters || []).concat(operation.parameters || []).map(function (p) {
      return resolve(spec, p);
    });
    var url = path.replace(/\{([^}]+)\}/g, function (_, name) {
      var parameter = parameters.filter(function (p) {
        return p.in === 'path' && p.name === name;
      })[0];
      return encodeURIComponent(String(parameter && parameter.schema ? sample(spec, parameter.schema, 0) : 1));
    });
    var lines = ['curl' + (method === 'get' ? '' : method === 'head' ? ' --head' : ' -X ' + method.toUpperCase()) + ' ' + quote(base + url)];
    var token = tokenHeader(spec, operation);
    if (token) lines.push('-H ' + quote(token));
    var body = operation.requestBody && resolve(spec, operation.requestBody).content;
    if (body && body['application/json']) {
      lines.push("-H 'Content-Type: application/json'");
      lines.push('--data ' + quote(JSON.stringify(sample(spec, body['application/json'].schema || {}, 0))));
    }
    return lines.join(' \\\n  ');
  }

  function addSamples(spec) {
    var server = spec.servers && spec.servers[0] && spec.servers[0].url;
    var base = new URL(server || '/', location.href).href.replace(/\/$/, '');
    Object.keys(spec.paths || {}).forEach(function (path) {
      var item = spec.paths[path];
      METHODS.forEach(function (method) {
        var operation = item[method];
        if (!operation || operation['x-codeSamples']) return;
        operation['x-codeSamples'] = [{ lang: 'Shell', label: 'curl', source: curl(spec, base, path, method, item, operation) }];
      });
    });
    return spec;
  }

  var header = document.querySelector('.site-header');
  fetch(root.getAttribute('data-schema-url'), { headers: { accept: 'application/json' } })
    .then(function (response) {
      if (!response.ok) throw new Error('the OpenAPI document answered ' + response.status);
      return response.json();
    })
    .then(function (spec) {
      window.Redoc.init(
        addSamples(spec),
        {
          // Search runs in a Worker made from a blob: URL, which the page's CSP refuses.
          disableSearch: true,
          hideDownloadButton: true,
          nativeScrollbars: true,
          expandResponses: '200,201',
          jsonSampleExpandLevel: 2,
          // The curl example first, the JSON payload in the next tab.
          payloadSampleIdx: 1,
          scrollYOffset: function () {
            return header && getComputedStyle(header).position === 'sticky' ? header.offsetHeight : 0;
          },
          theme: {
            typography: {
              fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
              headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
              code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
            },
          },
        },
        root,
      );
    })
    .catch(function (error) {
      root.textContent = 'The reference could not be rendered: ' + error.message + '. The document is at /api/schema/.';
    });
})();
