// Asks one question through an official SDK and prints, as one JSON
// line, what the SDK made of the answer: {text, input, output} or
// {error: {status, message, code, type}}.
//
//   node client.mjs chat|responses|messages stream|json BASE_URL MODEL
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

const [api, mode, baseURL, model] = process.argv.slice(2);
const stream = mode === 'stream';
const question = 'What is 6 times 7?';

async function chat() {
  const client = new OpenAI({ baseURL, apiKey: 'k', maxRetries: 0 });
  const params = { model, messages: [{ role: 'user', content: question }] };
  if (!stream) {
    const r = await client.chat.completions.create(params);
    return { text: r.choices[0].message.content, input: r.usage.prompt_tokens, output: r.usage.completion_tokens };
  }
  // The SDK's stream helper checks the chunks and assembles the message.
  const s = client.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
  let deltas = '';
  s.on('content', (delta) => { deltas += delta; });
  const r = await s.finalChatCompletion();
  const text = r.choices[0].message.content;
  if (deltas !== text) throw new Error(`deltas ${JSON.stringify(deltas)} differ from the message ${JSON.stringify(text)}`);
  return { text, input: r.usage.prompt_tokens, output: r.usage.completion_tokens };
}

async function responses() {
  const client = new OpenAI({ baseURL, apiKey: 'k', maxRetries: 0 });
  const params = { model, input: question };
  if (!stream) {
    const r = await client.responses.create(params);
    return { text: r.output_text, input: r.usage.input_tokens, output: r.usage.output_tokens };
  }
  // The stream helper checks each event against the response it builds
  // (items, content parts, indexes) and returns the completed one.
  const s = client.responses.stream(params);
  let deltas = '';
  s.on('response.output_text.delta', (ev) => { deltas += ev.delta; });
  const r = await s.finalResponse();
  if (deltas !== r.output_text) throw new Error(`deltas ${JSON.stringify(deltas)} differ from the response ${JSON.stringify(r.output_text)}`);
  return { text: r.output_text, input: r.usage.input_tokens, output: r.usage.output_tokens };
}

async function messages() {
  const client = new Anthropic({ baseURL, apiKey: 'k', maxRetries: 0 });
  const params = { model, max_tokens: 256, messages: [{ role: 'user', content: question }] };
  let m;
  let deltas = null;
  if (!stream) {
    m = await client.messages.create(params);
  } else {
    const s = client.messages.stream(params);
    deltas = '';
    s.on('text', (t) => { deltas += t; });
    m = await s.finalMessage();
  }
  const text = m.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  if (deltas !== null && deltas !== text) throw new Error(`deltas ${JSON.stringify(deltas)} differ from the message ${JSON.stringify(text)}`);
  return { text, input: m.usage.input_tokens, output: m.usage.output_tokens };
}

try {
  const out = await { chat, responses, messages }[api]();
  console.log(JSON.stringify(out));
} catch (e) {
  if (e && e.constructor && e.constructor.name && 'status' in e) {
    // An APIError: the status and the error object as the SDK read them.
    const err = e.error && e.error.error ? e.error.error : e.error || {};
    console.log(JSON.stringify({ error: { status: e.status ?? 0, message: err.message ?? e.message, code: err.code ?? null, type: err.type ?? null, sdk: e.constructor.name } }));
  } else {
    console.log(JSON.stringify({ error: { status: 0, message: String(e && e.message || e), sdk: e && e.constructor && e.constructor.name } }));
  }
}
