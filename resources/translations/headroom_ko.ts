<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko">
<context>
    <name>headroom::report::LayerTablePainter</name>
    <message>
        <source>Layer</source>
        <translation type="unfinished">레이어</translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished">유형</translation>
    </message>
    <message>
        <source>Output shape</source>
        <translation type="unfinished">출력 형태</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation type="unfinished">파라미터</translation>
    </message>
    <message>
        <source>Activations
per sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLOPs
per sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layers (continued)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Total</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::report::MemoryChartPainter</name>
    <message>
        <source>Batch %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max batch %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation type="unfinished">배치 크기</translation>
    </message>
</context>
<context>
    <name>headroom::report::ReportCanvas</name>
    <message>
        <source>Page %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::report::ReportComposer</name>
    <message>
        <source>Untitled model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Generated %1 by Headroom %2, the GPU memory planner for deep-learning training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set-up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation type="unfinished">파라미터</translation>
    </message>
    <message>
        <source>%1 (%2 trainable)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation type="unfinished">%1: %2 {1,?}</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2 memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation type="unfinished">배치 크기</translation>
    </message>
    <message>
        <source>%1 per GPU (micro-batch); effective batch %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation type="unfinished">프레임워크 오버헤드</translation>
    </message>
    <message>
        <source>Fits on the %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Does not fit on the %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch %1 needs %2 of %3: %4 %5.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>shortfall</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Not even batch 1 fits: it needs %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Not even batch 1 fits.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Max batch: %1 (the largest batch Headroom considers).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Max batch: %1 per GPU, an effective batch of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Max batch: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Memory is per GPU, on each of %1 GPUs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Component</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At batch %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Per sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fixed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No throughput estimate: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput (estimated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 per optimizer step (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Samples per second</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> across %1 GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens per second</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 tokens per sample)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 forward + %2 backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> + %1 recomputed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLOPs per sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assumed utilisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 TFLOP/s peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation type="unfinished">추정 불가</translation>
    </message>
    <message>
        <source>Headroom cannot estimate this plan: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (at %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Fix the model and export the report again; the layer table below marks the layers concerned.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory by component from batch %1 to %2, stacked. Memory grows linearly with the batch: %3 fixed plus %4 per sample.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory versus batch size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layers (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Activations per sample: the bytes autograd saves for backward that this layer keeps first, for one sample. Batch-independent saved bytes (such as per-channel statistics) are part of the estimate but not of this column. FLOPs per sample: forward plus backward (input and weight gradients) for one sample; checkpoint recomputation is in the throughput section.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Activations.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The tensors autograd saves for the backward pass, with PyTorch 2.x semantics on CUDA: each saved storage is counted once, at the layer that first keeps it, the loss&apos;s included. The input batch with its labels and the backward transient (the largest pair of activation gradients alive at once during backward) are components of their own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The total is the sum of all the components: the memory at the start of the backward pass when gradients are kept between steps (zero_grad(set_to_none=False), or gradient accumulation). With PyTorch 2.x&apos;s default set_to_none=True the real peak can be lower by up to the gradients&apos; size; Headroom reports the sum so that a plan it says fits does fit. Weights, gradients, optimizer state and overhead do not depend on the batch size; activations, the input batch and the transient grow linearly with it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 keeps no state.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 keeps one float32 state tensor the size of each trainable parameter.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 keeps %2 float32 state tensors the size of each trainable parameter.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Pure half-precision training adds a float32 master copy of the weights.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Under autocast, weights, gradients and optimizer state stay float32, and the half copies of weights autocast caches for the step count as weights.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer and precision.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overhead and GPU memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Framework overhead is a user setting, here %1, for the CUDA context, kernel images, cuBLAS and cuDNN handles and workspaces, and the caching allocator&apos;s reserve; the real figure depends on the driver, the CUDA version and the libraries loaded. The GPU&apos;s memory is as the vendor states it; the display, the driver and other processes may hold part of it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient accumulation.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each optimizer step runs %1 micro-batches of %2 samples; memory follows the micro-batch, and the gradients are kept between micro-batches.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DDP: every GPU holds all weights, gradients and optimizer state, plus the gradient buckets the all-reduce uses.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ZeRO stage 1: each GPU keeps 1/N of the optimizer state.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: each GPU keeps 1/N of the optimizer state and of the gradients.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: each GPU keeps 1/N of the weights, the gradients and the optimizer state, and gathers each layer&apos;s full weights into communication buffers when it runs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Here N is 1 data-parallel GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Here N is %1 data-parallel GPUs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Tensor parallelism splits the attention and MLP layers&apos; weights and activations %1 ways.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> The optimizer state (with any float32 master weights) lives in CPU memory and takes no GPU memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Every figure is for one GPU; the chart&apos;s line is one GPU&apos;s memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Several GPUs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>8-bit optimizer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer state is kept in 8 bits with block-wise scales (bitsandbytes); tensors below 4,096 elements stay 32-bit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpointing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each checkpointed block keeps only its input; its activations are recomputed during backward, so one block&apos;s activations are alive at a time. The recomputation costs one more forward pass through those blocks.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Selective recomputation keeps everything but the attention score matrices, which backward recomputes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Targeted Linear layers get trainable rank-%1 adapters; every other parameter is frozen, so only the adapters have gradients and optimizer state.%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> QLoRA stores the frozen base weights in 4-bit NF4 with double-quantised constants; the adapters are half precision.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A roofline estimate: the step&apos;s FLOPs at %1 of the GPU&apos;s peak for the precision, or the bytes it must move at the GPU&apos;s memory bandwidth, whichever takes longer. Real runs vary with kernels, data loading and communication.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not modelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The caching allocator&apos;s rounding and fragmentation, cuDNN workspaces beyond the overhead setting, and temporaries inside the optimizer step.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>docs/memory-model.md in Headroom&apos;s documentation describes the memory model, its formulas and their sources. In short:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assumptions and method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory plan for %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::report::plantext</name>
    <message>
        <source>Sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 micro-batches per optimizer step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 data-parallel x %3 tensor-parallel)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation type="unfinished">%1: %2 {1,?}</translation>
    </message>
    <message>
        <source>Offload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>optimizer state in CPU memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation type="unfinished">옵티마이저 상태</translation>
    </message>
    <message>
        <source>8-bit (block-wise quantised)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention</source>
        <translation type="unfinished">어텐션</translation>
    </message>
    <message>
        <source>every Linear layer but the output head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>QLoRA rank %1 on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA rank %1 on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, dropout %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; base weights 4-bit NF4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of peak assumed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpointing (%1) adds %2 of activations at batch %3 (+%4): checkpointing these layers costs memory, and +%5 forward compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpointing (%1) saves %2 of activations at batch %3 (%4) for +%5 forward compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA adds %1 adapter parameters: %2 of %3 parameters train (%4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The optimizer step needs %1, more than the breakdown&apos;s %2: DeepSpeed ZeRO makes a float32 copy of each GPU&apos;s gradient partition for it (after the activations are freed). The fit and the max batch take this peak into account</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 replica</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 replicas</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 = %2 x %3 x %4</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::AttributeEditor</name>
    <message>
        <source>sizes</source>
        <translation>크기</translation>
    </message>
    <message>
        <source>same for all</source>
        <translation>모두 동일</translation>
    </message>
    <message>
        <source>e.g. 768 or 16, 16</source>
        <translation>예: 768 또는 16, 16</translation>
    </message>
    <message>
        <source>inferred</source>
        <translation>자동 추론</translation>
    </message>
    <message>
        <source>whole numbers from %1 up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>whole numbers from %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, or %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>numbers above %1, up to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>numbers from %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>numbers above %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>numbers from %1 up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>numbers up to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>any number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>on or off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>one of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” cannot be typed here: %2 takes %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leave %1 out of the model file: Headroom uses %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” is not allowed: %2 takes %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs at least one size.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” is not allowed: %2 takes %3, separated by commas.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::BatchPanel</name>
    <message>
        <source>Batch size, 1 to 4096 on a logarithmic scale (each tick doubles it)</source>
        <translation>배치 크기, 1~4096 로그 눈금 (한 눈금마다 두 배)</translation>
    </message>
    <message>
        <source>Set to Max</source>
        <translation>최대로 설정</translation>
    </message>
    <message>
        <source>Sets the batch size to the largest that fits the GPU</source>
        <translation>GPU에 들어가는 가장 큰 배치 크기로 설정합니다</translation>
    </message>
    <message>
        <source>Batch size:</source>
        <translation>배치 크기:</translation>
    </message>
    <message>
        <source>Max batch: %1</source>
        <translation>최대 배치: %1</translation>
    </message>
    <message>
        <source>Does not fit, even at batch 1</source>
        <translation>배치 1에서도 들어가지 않습니다</translation>
    </message>
    <message>
        <source>Total: %1 of %2</source>
        <translation>합계: %1 / %2</translation>
    </message>
    <message>
        <source>Headroom: %1</source>
        <translation>여유: %1</translation>
    </message>
    <message>
        <source>Shortfall: %1</source>
        <translation>부족: %1</translation>
    </message>
    <message>
        <source>Max batch: —</source>
        <translation>최대 배치: —</translation>
    </message>
    <message>
        <source>Total: —</source>
        <translation>합계: —</translation>
    </message>
    <message>
        <source>Max micro-batch per GPU: %1</source>
        <translation>GPU당 최대 마이크로 배치: %1</translation>
    </message>
    <message>
        <source>Per GPU: %1 of %2</source>
        <translation>GPU당: %1 / %2</translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Effective batch: %1 (%2); at most %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Samples per optimizer step: micro-batch × accumulation steps × data-parallel GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max micro-batch per GPU: —</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Per GPU: —</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step: %1 · %2 samples/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · %1 tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (at %1% of %2 TFLOPS%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, memory-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Per optimizer step and GPU: %1 (forward %2, backward %3, recomputation %4 per sample); compute %5, memory traffic %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput: — (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trainable: %1 of %2 parameters (%3%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; LoRA adapters: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The network is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add layers to see how much memory training it takes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · optimizer step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DeepSpeed ZeRO makes a float32 copy of each GPU&apos;s gradient partition for the optimizer step, after the activations are freed; that step is the peak the fit uses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>−%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>+%1 %: checkpointing these layers costs memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no saving</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpointing: activations %1 instead of %2 per sample (%3), recomputing %4 per sample (+%5 % forward compute)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::CoreText</name>
    <message>
        <source>Average pooling to a fixed output size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elementwise sum of two or more inputs (residual)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>2-D average pooling over [C, H, W]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch normalisation over [C] or [C, L]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch normalisation over [C, H, W]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Concatenates inputs along an axis (torch.cat)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1-D convolution over [C, L]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>2-D convolution over [C, H, W]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>2-D transposed convolution over [C, H, W]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zeroes elements with probability p while training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lookup table of learned vectors for integer ids</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flattens a range of axes into one (a view)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gaussian error linear unit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gated recurrent unit over a sequence [T, features]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Group normalisation over [C, *]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Passes its input through unchanged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Long short-term memory over a sequence [T, features]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer normalisation over the trailing axes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>x if x &gt; 0 else negative_slope * x</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fully connected layer on the last axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>2-D max pooling over [C, H, W]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elementwise product of two inputs (gated units)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Multi-head self-attention over a sequence [T, E]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GELU, tanh approximation written out in tensor ops (Hugging Face&apos;s gelu_new, GPT-2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learned position vectors added to a sequence [T, D]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Root-mean-square normalisation over the last axis (Llama&apos;s RMSNorm, computed in float32)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max(0, x)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>min(max(0, x), 6)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Multi-head attention on projected q, k, v (grouped-query, optional rotary embedding)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>x * sigmoid(x) (swish)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 / (1 + exp(-x))</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Softmax along one axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tanh(x)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learned segment vectors added to a sequence [T, D] (BERT&apos;s token type embeddings, segment 0)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Self-attention and feed-forward block with residuals and LayerNorms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output height and width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stride (kernel_size if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Implicit zero padding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rounds the output size up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Averages over padding too</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Divisor instead of the window size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Channels (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Added to the variance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running-statistics momentum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learnable scale and shift</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keeps running mean and variance buffers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Axis, counting the batch axis as 0 (1 = channels)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input channels (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output channels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kernel size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stride</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zero padding on each side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spacing between kernel elements</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Blocked connections from input to output channels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adds a learnable bias</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Padding mode (does not change sizes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Implicit zero padding removed from each side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Extra size added to one side of the output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Probability of zeroing an element</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overwrites the input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vocabulary size (rows of the table)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vector size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Id whose vector stays zero and gets no gradient</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>First axis to flatten, counting the batch axis as 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last axis to flatten (negative counts from the end)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exact erf form or the tanh approximation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input features (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Features of the hidden state</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stacked recurrent layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Biases b_ih and b_hh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch axis first: the output is a transposed view, which a following Linear or Flatten copies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dropout between stacked layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also runs the sequence backwards (doubles the output features)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Groups the channels are split into</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learnable per-channel scale and shift</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Projection size of the hidden state (only 0 is supported)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trailing axes to normalise (the last axis if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learnable per-element scale (and shift)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learnable shift (with elementwise_affine)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slope for negative inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overwrites the input instead of allocating an output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output features</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Implicit negative-infinity padding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spacing between window elements</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also returns the indices (they are kept anyway)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embedding size E (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention heads (must divide embed_dim)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dropout on the attention probabilities</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Biases on the input and output projections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learned bias rows appended to keys and values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A zero row appended to keys and values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key size (must equal embed_dim: self-attention) (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value size (must equal embed_dim: self-attention) (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch axis first (no memory effect)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Return the attention weights: the explicit path that keeps heads x T x T probabilities; false uses fused scaled-dot-product attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Causal mask hint (no memory effect)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Average the returned weights over heads (no memory effect)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Maximum sequence length (rows of the table)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vector size D (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Normalised size (the input&apos;s last axis) (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Added to the mean square</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learnable per-element scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query heads h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key/value heads g (grouped-query attention; must divide num_heads; default num_heads)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rotary position embedding applied to q and k (Llama)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eager softmax in float32 then cast back (Llama&apos;s softmax(dtype=float32)); false: in the scores&apos; dtype (GPT-2, BERT)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Causal mask (no memory effect)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Axis, counting the batch axis as 0 (negative counts from the end)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Segment types (rows of the table, type_vocab_size)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model width (the input&apos;s last axis) (inferred from the input if left out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention heads (must divide d_model)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Feed-forward width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dropout probability (attention, residual branches, feed-forward)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Feed-forward activation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LayerNorm epsilon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LayerNorm before attention and feed-forward (pre-norm)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Biases in the linear layers and LayerNorms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>kernel_size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the window size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>from the input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished">없음</translation>
    </message>
    <message>
        <source>the last axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>num_heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weights</source>
        <translation type="unfinished">가중치</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation type="unfinished">그래디언트</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation type="unfinished">옵티마이저 상태</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation type="unfinished">활성화</translation>
    </message>
    <message>
        <source>Input batch</source>
        <translation type="unfinished">입력 배치</translation>
    </message>
    <message>
        <source>Backward transient</source>
        <translation type="unfinished">역전파 임시 텐서</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation type="unfinished">통신 버퍼</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation type="unfinished">프레임워크 오버헤드</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation type="unfinished">SGD</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation type="unfinished">SGD (모멘텀)</translation>
    </message>
    <message>
        <source>SGD with Nesterov momentum</source>
        <translation type="unfinished">SGD (Nesterov 모멘텀)</translation>
    </message>
    <message>
        <source>Adam</source>
        <translation type="unfinished">Adam</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation type="unfinished">AdamW</translation>
    </message>
    <message>
        <source>Adam (AMSGrad)</source>
        <translation type="unfinished">Adam (AMSGrad)</translation>
    </message>
    <message>
        <source>RMSprop</source>
        <translation type="unfinished">RMSprop</translation>
    </message>
    <message>
        <source>RMSprop with momentum</source>
        <translation type="unfinished">RMSprop (모멘텀)</translation>
    </message>
    <message>
        <source>RMSprop (centered, momentum)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adagrad</source>
        <translation type="unfinished">Adagrad</translation>
    </message>
    <message>
        <source>Adadelta</source>
        <translation type="unfinished">Adadelta</translation>
    </message>
    <message>
        <source>Adamax</source>
        <translation type="unfinished">Adamax</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation type="unfinished">FP32</translation>
    </message>
    <message>
        <source>Mixed precision (FP16 autocast)</source>
        <translation type="unfinished">혼합 정밀도 (FP16 autocast)</translation>
    </message>
    <message>
        <source>Mixed precision (BF16 autocast)</source>
        <translation type="unfinished">혼합 정밀도 (BF16 autocast)</translation>
    </message>
    <message>
        <source>Pure FP16 (FP32 master weights)</source>
        <translation type="unfinished">순수 FP16 (FP32 마스터 가중치)</translation>
    </message>
    <message>
        <source>Pure BF16 (FP32 master weights)</source>
        <translation type="unfinished">순수 BF16 (FP32 마스터 가중치)</translation>
    </message>
    <message>
        <source>None</source>
        <translation type="unfinished">없음</translation>
    </message>
    <message>
        <source>Per block</source>
        <translation type="unfinished">블록별</translation>
    </message>
    <message>
        <source>Selective (attention scores)</source>
        <translation type="unfinished">선택적 (어텐션 점수)</translation>
    </message>
    <message>
        <source>Flash / SDPA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eager (keeps T x T scores)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DDP (no sharding)</source>
        <translation type="unfinished">DDP (샤딩 없음)</translation>
    </message>
    <message>
        <source>ZeRO stage 1</source>
        <translation type="unfinished">ZeRO 1단계</translation>
    </message>
    <message>
        <source>ZeRO stage 2</source>
        <translation type="unfinished">ZeRO 2단계</translation>
    </message>
    <message>
        <source>ZeRO stage 3</source>
        <translation type="unfinished">ZeRO 3단계</translation>
    </message>
    <message>
        <source>FSDP shard grad/op</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FSDP full shard</source>
        <translation type="unfinished">FSDP 전체 샤딩</translation>
    </message>
</context>
<context>
    <name>headroom::ui::DialogProvider</name>
    <message>
        <source>Unsaved changes</source>
        <translation>저장하지 않은 변경 사항</translation>
    </message>
    <message>
        <source>“%1” has unsaved changes. Save them first?</source>
        <translation>“%1”에 저장하지 않은 변경 사항이 있습니다. 먼저 저장할까요?</translation>
    </message>
    <message>
        <source>Custom GPU</source>
        <translation>사용자 정의 GPU</translation>
    </message>
    <message>
        <source>My GPU</source>
        <translation>내 GPU</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>이름:</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>메모리:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::Document</name>
    <message>
        <source>Untitled</source>
        <translation>제목 없음</translation>
    </message>
    <message>
        <source>Remove layer</source>
        <translation>레이어 삭제</translation>
    </message>
    <message numerus="yes">
        <source>Remove %n layers</source>
        <translation>
            <numerusform>레이어 %n개 삭제</numerusform>
        </translation>
    </message>
    <message>
        <source>Move layer</source>
        <translation>레이어 이동</translation>
    </message>
    <message numerus="yes">
        <source>Move %n layers</source>
        <translation>
            <numerusform>레이어 %n개 이동</numerusform>
        </translation>
    </message>
    <message>
        <source>Duplicate layer</source>
        <translation>레이어 복제</translation>
    </message>
    <message numerus="yes">
        <source>Duplicate %n layers</source>
        <translation>
            <numerusform>레이어 %n개 복제</numerusform>
        </translation>
    </message>
    <message>
        <source>Wrap in residual block</source>
        <translation>잔차 블록으로 감싸기</translation>
    </message>
    <message>
        <source>Change %1</source>
        <translation>%1 변경</translation>
    </message>
    <message>
        <source>Rename layer</source>
        <translation>레이어 이름 변경</translation>
    </message>
    <message>
        <source>Change inputs</source>
        <translation>입력 변경</translation>
    </message>
    <message>
        <source>Change repeat count</source>
        <translation>반복 횟수 변경</translation>
    </message>
    <message>
        <source>Rename network</source>
        <translation>네트워크 이름 변경</translation>
    </message>
    <message>
        <source>Change input</source>
        <translation>네트워크 입력 변경</translation>
    </message>
    <message>
        <source>Change loss</source>
        <translation>손실 함수 변경</translation>
    </message>
    <message>
        <source>Change precision</source>
        <translation>정밀도 변경</translation>
    </message>
    <message>
        <source>Change batch size</source>
        <translation>배치 크기 변경</translation>
    </message>
    <message>
        <source>Change optimizer</source>
        <translation>옵티마이저 변경</translation>
    </message>
    <message>
        <source>Change GPU</source>
        <translation>GPU 변경</translation>
    </message>
    <message>
        <source>Change overhead</source>
        <translation>프레임워크 오버헤드 변경</translation>
    </message>
    <message>
        <source>Freeze layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unfreeze layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpoint block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop checkpointing block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select the layers to checkpoint.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only top-level layers can be checkpointed as a block.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot checkpoint these layers as one block: &quot;%1&quot; after them uses &quot;%2&quot; inside it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpoint selection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change accumulation steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change parallelism</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change GPU count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change tensor parallelism</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change sharding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Offload optimizer state</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep optimizer state on the GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use an 8-bit optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use a 32-bit optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change assumed utilisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change checkpointing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change attention implementation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change LoRA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select the layers to wrap.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot wrap these layers in a residual block: they change the shape from %1 to %2, and a residual connection adds the block&apos;s input to its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot wrap these layers in a residual block: their output cannot be added to their input.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::ErrorText</name>
    <message>
        <source>input %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 element %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>input %1 of layer %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the layers of block %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 element %2 of layer %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of layer %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dimension %1 of the input shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA target %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer %1 (%2): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer %1: %2</source>
        <translation type="unfinished">레이어 %1: %2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::GpuSelector</name>
    <message>
        <source>Type to search GPUs</source>
        <translation>GPU 검색어 입력</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Custom GPUs</source>
        <translation>사용자 정의 GPU</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Also: %1</source>
        <translation>다른 이름: %1</translation>
    </message>
    <message>
        <source>Custom...</source>
        <translation>사용자 정의...</translation>
    </message>
    <message>
        <source>A GPU with a memory size of your choice</source>
        <translation>메모리 크기를 직접 지정하는 GPU</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LayerActivationsView</name>
    <message>
        <source>Layer</source>
        <translation type="unfinished">레이어</translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished">유형</translation>
    </message>
    <message>
        <source>Activations / sample</source>
        <translation type="unfinished">활성화 / 샘플</translation>
    </message>
    <message>
        <source>Click a column to sort by it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2): keeps %3 per sample for the backward pass, %4% of all activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No layer keeps activations for the backward pass.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Memory each of the %1 layers keeps per sample for the backward pass (%2 in all). %3 the %n heaviest  %4 the others. Click a column to sort.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>headroom::ui::LayerEditor</name>
    <message>
        <source>&amp;Add Layer</source>
        <translation>레이어 추가(&amp;A)</translation>
    </message>
    <message>
        <source>Repeat Block</source>
        <translation>반복 블록</translation>
    </message>
    <message>
        <source>A block of layers repeated several times</source>
        <translation>여러 번 반복되는 레이어 묶음</translation>
    </message>
    <message>
        <source>&amp;Remove Layer</source>
        <translation>레이어 삭제(&amp;R)</translation>
    </message>
    <message>
        <source>D&amp;uplicate Layer</source>
        <translation>레이어 복제(&amp;U)</translation>
    </message>
    <message>
        <source>Move &amp;Up</source>
        <translation>위로 이동(&amp;U)</translation>
    </message>
    <message>
        <source>Move Do&amp;wn</source>
        <translation>아래로 이동(&amp;W)</translation>
    </message>
    <message>
        <source>Wrap in Residual &amp;Block</source>
        <translation>잔차 블록으로 감싸기(&amp;B)</translation>
    </message>
    <message>
        <source>Puts the selected layers in a block whose input is added to its output</source>
        <translation>선택한 레이어를 블록으로 묶고, 블록의 입력을 출력에 더합니다</translation>
    </message>
    <message>
        <source>Add Layer</source>
        <translation>레이어 추가</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>삭제</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>복제</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>위로</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>아래로</translation>
    </message>
    <message>
        <source>Residual</source>
        <translation>잔차</translation>
    </message>
    <message>
        <source>Add %1</source>
        <translation>%1 추가</translation>
    </message>
    <message>
        <source>&amp;Checkpoint Selection</source>
        <translation>선택 영역 체크포인트(&amp;C)</translation>
    </message>
    <message>
        <source>Puts the selected top-level layers in a checkpointed block: backward recomputes their activations instead of keeping them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>체크포인트</translation>
    </message>
    <message>
        <source>Layer %1 is invalid: see its properties below.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer %1 (%2) is invalid: see its properties below.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::LayerTableModel</name>
    <message>
        <source>Repeat × %1</source>
        <translation>반복 × %1</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>이름</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>유형</translation>
    </message>
    <message>
        <source>Output shape</source>
        <translation>출력 형태</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>파라미터</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>입력</translation>
    </message>
    <message>
        <source>Memory kept for the backward pass per sample (a Repeat block: all its repetitions)</source>
        <translation>샘플당 역전파를 위해 보관하는 메모리 (반복 블록: 모든 반복의 합)</translation>
    </message>
    <message>
        <source>Layers: %1 · Parameters: %2 · Activations per sample: %3</source>
        <translation>레이어: %1 · 파라미터: %2 · 샘플당 활성화: %3</translation>
    </message>
    <message>
        <source>frozen</source>
        <translation>고정</translation>
    </message>
    <message>
        <source>checkpointed</source>
        <translation>체크포인트</translation>
    </message>
    <message>
        <source>LoRA +%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frozen: no gradients or optimizer state for its parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpointed: its activations are recomputed in the backward pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA adapters: %1 trainable parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training</source>
        <translation>학습</translation>
    </message>
    <message>
        <source>Frozen layers, layers recomputed by activation checkpointing, and LoRA adapter parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished">%1: %2</translation>
    </message>
    <message>
        <source>Parameters: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 per sample kept for the backward pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward %1 + backward %2 per sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Activations
per sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLOPs
per sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward + backward floating-point operations per sample (a Repeat block: all its repetitions); checkpoint recomputation is in the summary</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::MainWindow</name>
    <message>
        <source>Headroom models (*.json);;All files (*)</source>
        <translation>Headroom 모델 (*.json);;모든 파일 (*)</translation>
    </message>
    <message>
        <source>Training set-up</source>
        <translation>학습 설정</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>배치 크기</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>사용자 정의</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>파일(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>새로 만들기(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>열기(&amp;O)...</translation>
    </message>
    <message>
        <source>Open Model</source>
        <translation>모델 열기</translation>
    </message>
    <message>
        <source>Open &amp;Preset</source>
        <translation>프리셋 열기(&amp;P)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>최근 파일(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>저장(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As...</source>
        <translation>다른 이름으로 저장(&amp;A)...</translation>
    </message>
    <message>
        <source>&amp;Export Report...</source>
        <translation>보고서 내보내기(&amp;E)...</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>종료(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>편집(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>실행 취소(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>다시 실행(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Layer</source>
        <translation>레이어(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>도움말(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Headroom</source>
        <translation>Headroom 정보(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>&amp;Qt 정보</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>제목 없음</translation>
    </message>
    <message>
        <source>Cannot open the model</source>
        <translation>모델을 열 수 없습니다</translation>
    </message>
    <message>
        <source>Cannot open the preset</source>
        <translation>프리셋을 열 수 없습니다</translation>
    </message>
    <message>
        <source>Save Model As</source>
        <translation>모델을 다른 이름으로 저장</translation>
    </message>
    <message>
        <source>Cannot save the model</source>
        <translation>모델을 저장할 수 없습니다</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 저장됨</translation>
    </message>
    <message>
        <source>%1 - %2 - batch %3.pdf</source>
        <translation>%1 - %2 - 배치 %3.pdf</translation>
    </message>
    <message>
        <source>Export Report</source>
        <translation>보고서 내보내기</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF 문서 (*.pdf)</translation>
    </message>
    <message>
        <source>Cannot export the report</source>
        <translation>보고서를 내보낼 수 없습니다</translation>
    </message>
    <message>
        <source>Report written to %1</source>
        <translation>보고서를 %1에 저장했습니다</translation>
    </message>
    <message>
        <source>Clear Recent Files</source>
        <translation>최근 파일 목록 지우기</translation>
    </message>
    <message>
        <source>%1[*] — Headroom</source>
        <translation>%1[*] — Headroom</translation>
    </message>
    <message>
        <source>About Headroom</source>
        <translation>Headroom 정보</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Plans GPU memory for deep-learning training: build or open a network, pick a GPU and see the largest batch that fits.&lt;/p&gt;&lt;p&gt;Estimates follow PyTorch&apos;s memory behaviour; see the user guide for the assumptions.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;딥러닝 학습을 위한 GPU 메모리 계획 도구입니다. 네트워크를 만들거나 열고 GPU를 고르면 들어가는 가장 큰 배치를 바로 볼 수 있습니다.&lt;/p&gt;&lt;p&gt;추정치는 PyTorch의 메모리 동작을 따릅니다. 가정은 사용자 가이드를 참고하세요.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Models (*.json *.onnx);;Headroom models (*.json);;ONNX models (*.onnx);;Hugging Face configs (config.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models to import (*.onnx config.json);;ONNX models (*.onnx);;Hugging Face configs (config.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import...</source>
        <translation>가져오기(&amp;I)...</translation>
    </message>
    <message>
        <source>Opens an ONNX model or a Hugging Face config.json as a new Headroom model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import Model</source>
        <translation>모델 가져오기</translation>
    </message>
    <message>
        <source>Cannot import the model</source>
        <translation>모델을 가져올 수 없습니다</translation>
    </message>
    <message>
        <source>Imported %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is the file the model was imported from: Headroom saves models as .json files and leaves it as it is. Choose another name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (imported from %2)[*] — Headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Undo %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Redo %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opens the user guide installed with Headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 in the documentation (Help &gt; User Guide)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open the user guide</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The documentation is not installed next to Headroom (it belongs in %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No application could open %1. Open it with a text editor or a Markdown viewer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder %1 does not exist. Choose another folder for %2.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::MemoryChartView</name>
    <message>
        <source>Over budget</source>
        <translation>메모리 초과</translation>
    </message>
    <message>
        <source>Memory vs. batch size</source>
        <translation>메모리 대 배치 크기</translation>
    </message>
    <message>
        <source>Activations per layer</source>
        <translation>레이어별 활성화</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>추정 불가</translation>
    </message>
    <message>
        <source>Memory (%1)</source>
        <translation>메모리 (%1)</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>배치 %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Batch %1</source>
        <translation>배치 %1</translation>
    </message>
    <message>
        <source>Total: %1 of %2</source>
        <translation>합계: %1 / %2</translation>
    </message>
    <message>
        <source>Memory per GPU (%1)</source>
        <translation>GPU당 메모리 (%1)</translation>
    </message>
    <message>
        <source>M</source>
        <comment>batch-size suffix: 1,048,576</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>k</source>
        <comment>batch-size suffix: 1,024</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch size (log scale)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Micro-batch per GPU (log scale)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanController</name>
    <message>
        <source>The network is empty: add layers to see how much memory training it takes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No estimate: the training set-up cannot be used (the reason is under the set-up).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No estimate until layer %1 is fixed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No estimate until the network is fixed (the reason is under the layer table).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::PropertyPanel</name>
    <message>
        <source>Network</source>
        <translation>네트워크</translation>
    </message>
    <message>
        <source>One sample&apos;s shape without the batch axis, e.g. 3, 224, 224</source>
        <translation>배치 축을 제외한 샘플 하나의 형태, 예: 3, 224, 224</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>이름:</translation>
    </message>
    <message>
        <source>Input shape:</source>
        <translation>입력 형태:</translation>
    </message>
    <message>
        <source>Loss:</source>
        <translation>손실 함수:</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>레이어</translation>
    </message>
    <message>
        <source>(unnamed)</source>
        <translation>(이름 없음)</translation>
    </message>
    <message>
        <source>Inputs:</source>
        <translation>입력:</translation>
    </message>
    <message>
        <source>the previous layer</source>
        <translation>이전 레이어</translation>
    </message>
    <message>
        <source>Names of the layers feeding this one, separated by commas (&quot;input&quot; is the network&apos;s input, &quot;repeat_input&quot; a block&apos;s)</source>
        <translation>이 레이어에 입력을 주는 레이어 이름, 쉼표로 구분 (&quot;input&quot;은 네트워크 입력, &quot;repeat_input&quot;은 블록 입력)</translation>
    </message>
    <message>
        <source>Repeat:</source>
        <translation>반복:</translation>
    </message>
    <message>
        <source> times</source>
        <translation>회</translation>
    </message>
    <message>
        <source>two or more layer names</source>
        <translation>레이어 이름 두 개 이상</translation>
    </message>
    <message>
        <source>Repeats the layers inside it; &quot;repeat_input&quot; names the block&apos;s input.</source>
        <translation>안의 레이어를 반복합니다. &quot;repeat_input&quot;은 블록의 입력입니다.</translation>
    </message>
    <message>
        <source>Unknown layer type</source>
        <translation>알 수 없는 레이어 유형</translation>
    </message>
    <message>
        <source>Select a layer to edit it.</source>
        <translation>편집할 레이어를 선택하세요.</translation>
    </message>
    <message>
        <source>Layer %1: %2</source>
        <translation>레이어 %1: %2</translation>
    </message>
    <message>
        <source>Training:</source>
        <translation>학습:</translation>
    </message>
    <message>
        <source>Frozen</source>
        <translation>고정</translation>
    </message>
    <message>
        <source>Not trained: no gradients or optimizer state for its parameters (on a block: every layer inside)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>체크포인트</translation>
    </message>
    <message>
        <source>Each repetition keeps only its input; backward recomputes the rest (activation checkpointing per block)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Takes effect when the set-up&apos;s checkpointing is &quot;%1&quot; (now &quot;%2&quot;).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Letters, digits, “_”, “.” and “-”; other layers use it in their inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type one sample&apos;s shape without the batch axis, for example 3, 224, 224.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” is not a size: each dimension is a whole number of at least 1 (for example 3, 224, 224).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A name has letters, digits, “_”, “.” and “-” only (at most 200).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” is reserved for the network&apos;s input.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::SetupPanel</name>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>CUDA context, kernel images, cuBLAS/cuDNN workspaces and allocator reserve</source>
        <translation>CUDA 컨텍스트, 커널 이미지, cuBLAS/cuDNN 작업 공간, 할당자 예약</translation>
    </message>
    <message>
        <source>GPU:</source>
        <translation>GPU:</translation>
    </message>
    <message>
        <source>Optimizer:</source>
        <translation>옵티마이저:</translation>
    </message>
    <message>
        <source>Precision:</source>
        <translation>정밀도:</translation>
    </message>
    <message>
        <source>Overhead:</source>
        <translation>오버헤드:</translation>
    </message>
    <message>
        <source>GPU &amp;&amp; optimizer</source>
        <translation>GPU 및 옵티마이저</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>전략</translation>
    </message>
    <message>
        <source>Activation checkpointing, attention, sequence length, gradient accumulation, LoRA and QLoRA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Multi-GPU</source>
        <translation>멀티 GPU</translation>
    </message>
    <message>
        <source>Data parallelism (DDP, ZeRO, FSDP), tensor parallelism and optimizer offload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>8-bit state</source>
        <translation>8비트 상태</translation>
    </message>
    <message>
        <source>bitsandbytes-style 8-bit optimizer state (block-wise quantised; tensors below 4096 elements stay 32-bit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The fraction of the GPU&apos;s peak FLOP rate a training step is assumed to reach (for the step time and throughput)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Utilisation:</source>
        <translation>활용률:</translation>
    </message>
    <message>
        <source>Activation checkpointing: per block keeps only each checkpointed block&apos;s input and recomputes the rest in backward (mark blocks in the layer editor; with none marked, every top-level Repeat block); selective recomputes only the attention score matrices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flash / SDPA kernels keep no T × T matrix; eager attention keeps heads × T × T probabilities (and their dropout mask)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 토큰</translation>
    </message>
    <message>
        <source> steps</source>
        <translation> 단계</translation>
    </message>
    <message>
        <source>none</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>Gradient accumulation: each optimizer step sees micro-batch × steps samples per data-parallel GPU; memory follows the micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off</source>
        <translation>끔</translation>
    </message>
    <message>
        <source>LoRA rank r: targeted Linear layers are frozen and get trainable r × in and out × r adapters; every other parameter is frozen. 0 turns LoRA off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every Linear but the head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Linear layers to adapt, matched against the end of their names, separated by commas (q_proj, v_proj)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lora_dropout: above 0, each adapted layer keeps a dropped copy of its input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>QLoRA (4-bit base)</source>
        <translation>QLoRA (4비트 기반 가중치)</translation>
    </message>
    <message>
        <source>QLoRA: the frozen base Linear weights stored as 4-bit NF4 with double-quantised constants; adapters in the half type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpointing:</source>
        <translation>체크포인팅:</translation>
    </message>
    <message>
        <source>Attention:</source>
        <translation>어텐션:</translation>
    </message>
    <message>
        <source>Sequence length:</source>
        <translation>시퀀스 길이:</translation>
    </message>
    <message>
        <source>Accumulation:</source>
        <translation>그래디언트 누적:</translation>
    </message>
    <message>
        <source>LoRA rank:</source>
        <translation>LoRA 랭크:</translation>
    </message>
    <message>
        <source>Targets:</source>
        <translation>대상:</translation>
    </message>
    <message>
        <source>LoRA dropout:</source>
        <translation>LoRA 드롭아웃:</translation>
    </message>
    <message>
        <source>GPUs in all (data-parallel × tensor-parallel); the chart shows one GPU&apos;s memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How data parallelism shares the model state: DDP keeps everything on every GPU; ZeRO 1 shards optimizer state, 2 also gradients, 3 also weights (FSDP: shard-grad-op as ZeRO 2, full shard as ZeRO 3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Megatron tensor-parallel degree for attention and MLP layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Offload optimizer state to the CPU</source>
        <translation>옵티마이저 상태를 CPU로 오프로드</translation>
    </message>
    <message>
        <source>GPUs:</source>
        <translation>GPU 수:</translation>
    </message>
    <message>
        <source>Sharding:</source>
        <translation>샤딩:</translation>
    </message>
    <message>
        <source>Tensor parallel:</source>
        <translation>텐서 병렬:</translation>
    </message>
    <message>
        <source>Cannot use this set-up: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens per sample; the model&apos;s own is %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only for models whose input is a sequence (token ids [T] or features [T, E])</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>n/a</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer state (and FP32 master weights) kept in CPU memory (ZeRO-Offload); needs a ZeRO stage or FSDP sharding</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::UiText</name>
    <message>
        <source>Weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>그래디언트</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>옵티마이저 상태</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>활성화</translation>
    </message>
    <message>
        <source>Input batch</source>
        <translation>입력 배치</translation>
    </message>
    <message>
        <source>Backward transient</source>
        <translation>역전파 임시 텐서</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>프레임워크 오버헤드</translation>
    </message>
    <message>
        <source>Convolution</source>
        <translation>합성곱</translation>
    </message>
    <message>
        <source>Linear</source>
        <translation>선형</translation>
    </message>
    <message>
        <source>Normalization</source>
        <translation>정규화</translation>
    </message>
    <message>
        <source>Activation</source>
        <translation>활성화 함수</translation>
    </message>
    <message>
        <source>Pooling</source>
        <translation>풀링</translation>
    </message>
    <message>
        <source>Dropout</source>
        <translation>드롭아웃</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>형태 변환</translation>
    </message>
    <message>
        <source>Recurrent</source>
        <translation>순환</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>어텐션</translation>
    </message>
    <message>
        <source>Embedding</source>
        <translation>임베딩</translation>
    </message>
    <message>
        <source>Merge</source>
        <translation>병합</translation>
    </message>
    <message>
        <source>Structure</source>
        <translation>구조</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>Mixed precision (FP16 autocast)</source>
        <translation>혼합 정밀도 (FP16 autocast)</translation>
    </message>
    <message>
        <source>Mixed precision (BF16 autocast)</source>
        <translation>혼합 정밀도 (BF16 autocast)</translation>
    </message>
    <message>
        <source>Pure FP16 (FP32 master weights)</source>
        <translation>순수 FP16 (FP32 마스터 가중치)</translation>
    </message>
    <message>
        <source>Pure BF16 (FP32 master weights)</source>
        <translation>순수 BF16 (FP32 마스터 가중치)</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>SGD (모멘텀)</translation>
    </message>
    <message>
        <source>SGD with Nesterov momentum</source>
        <translation>SGD (Nesterov 모멘텀)</translation>
    </message>
    <message>
        <source>Adam</source>
        <translation>Adam</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>Adam (AMSGrad)</source>
        <translation>Adam (AMSGrad)</translation>
    </message>
    <message>
        <source>RMSprop</source>
        <translation>RMSprop</translation>
    </message>
    <message>
        <source>RMSprop with momentum</source>
        <translation>RMSprop (모멘텀)</translation>
    </message>
    <message>
        <source>RMSprop (centred, momentum)</source>
        <translation>RMSprop (중심화, 모멘텀)</translation>
    </message>
    <message>
        <source>Adagrad</source>
        <translation>Adagrad</translation>
    </message>
    <message>
        <source>Adadelta</source>
        <translation>Adadelta</translation>
    </message>
    <message>
        <source>Adamax</source>
        <translation>Adamax</translation>
    </message>
    <message>
        <source>Cross-entropy</source>
        <translation>교차 엔트로피</translation>
    </message>
    <message>
        <source>Mean squared error</source>
        <translation>평균 제곱 오차</translation>
    </message>
    <message>
        <source>None</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation>통신 버퍼</translation>
    </message>
    <message>
        <source>Per block</source>
        <translation>블록별</translation>
    </message>
    <message>
        <source>Selective (attention scores)</source>
        <translation>선택적 (어텐션 점수)</translation>
    </message>
    <message>
        <source>Flash / SDPA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eager (keeps T × T)</source>
        <translation>Eager (T × T 유지)</translation>
    </message>
    <message>
        <source>DDP (no sharding)</source>
        <translation>DDP (샤딩 없음)</translation>
    </message>
    <message>
        <source>ZeRO stage 1</source>
        <translation>ZeRO 1단계</translation>
    </message>
    <message>
        <source>ZeRO stage 2</source>
        <translation>ZeRO 2단계</translation>
    </message>
    <message>
        <source>ZeRO stage 3</source>
        <translation>ZeRO 3단계</translation>
    </message>
    <message>
        <source>FSDP shard-grad-op</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FSDP full shard</source>
        <translation>FSDP 전체 샤딩</translation>
    </message>
    <message>
        <source>%1 %2FLOP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 G</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
