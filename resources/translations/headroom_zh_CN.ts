<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>headroom::report::LayerTablePainter</name>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Output shape</source>
        <translation>输出形状</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Activations
per sample</source>
        <translation>每样本
激活值</translation>
    </message>
    <message>
        <source>FLOPs
per sample</source>
        <translation>每样本
FLOPs</translation>
    </message>
    <message>
        <source>Layers (continued)</source>
        <translation>各层（续）</translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
</context>
<context>
    <name>headroom::report::MeasuredChartPainter</name>
    <message>
        <source>Before the steps</source>
        <translation>训练步之前</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>优化器步</translation>
    </message>
    <message>
        <source>Predicted allocated</source>
        <translation>预测已分配</translation>
    </message>
    <message>
        <source>Predicted reserved</source>
        <translation>预测预留</translation>
    </message>
    <message>
        <source>Measured allocated</source>
        <translation>实测已分配</translation>
    </message>
    <message>
        <source>Measured reserved</source>
        <translation>实测预留</translation>
    </message>
    <message>
        <source>Predicted peak %1 (%2)</source>
        <translation>预测峰值 %1（%2）</translation>
    </message>
    <message>
        <source>Measured peak %1 (%2)</source>
        <translation>实测峰值 %1（%2）</translation>
    </message>
</context>
<context>
    <name>headroom::report::MemoryChartPainter</name>
    <message>
        <source>Batch %1: %2</source>
        <translation>批大小 %1：%2</translation>
    </message>
    <message>
        <source>Max batch %1</source>
        <translation>最大批大小 %1</translation>
    </message>
    <message>
        <source>Micro-batch per GPU (log scale)</source>
        <translation>每 GPU 微批大小（对数刻度）</translation>
    </message>
    <message>
        <source>Batch size (log scale)</source>
        <translation>批大小（对数刻度）</translation>
    </message>
    <message>
        <source>Batch %1: tensors %2</source>
        <translation>批次 %1：张量 %2</translation>
    </message>
</context>
<context>
    <name>headroom::report::MemorySweep</name>
    <message>
        <source>M</source>
        <comment>batch-size suffix: 1,048,576</comment>
        <translation>M</translation>
    </message>
    <message>
        <source>k</source>
        <comment>batch-size suffix: 1,024</comment>
        <translation>k</translation>
    </message>
</context>
<context>
    <name>headroom::report::PlannerText</name>
    <message>
        <source>No LoRA: every weight trains</source>
        <translation>不用 LoRA：所有权重都训练</translation>
    </message>
    <message>
        <source>QLoRA rank %1 (4-bit base weights)</source>
        <translation>QLoRA 秩 %1（4 位基础权重）</translation>
    </message>
    <message>
        <source>LoRA rank %1</source>
        <translation>LoRA 秩 %1</translation>
    </message>
    <message>
        <source>8-bit optimizer state</source>
        <translation>8 位优化器状态</translation>
    </message>
    <message>
        <source>32-bit optimizer state</source>
        <translation>32 位优化器状态</translation>
    </message>
    <message>
        <source>Optimizer step: %1</source>
        <translation>优化器步骤：%1</translation>
    </message>
    <message>
        <source>No checkpointing</source>
        <translation>不使用检查点</translation>
    </message>
    <message>
        <source>Checkpointing: %1</source>
        <translation>检查点：%1</translation>
    </message>
    <message>
        <source>No gradient accumulation</source>
        <translation>不使用梯度累积</translation>
    </message>
    <message>
        <source>%1 accumulation steps (batch-norm statistics over micro-batches of %2)</source>
        <translation>%1 个累积步（批归一化统计基于大小为 %2 的微批次）</translation>
    </message>
    <message>
        <source>%1 accumulation steps</source>
        <translation>%1 个累积步</translation>
    </message>
    <message>
        <source>Tensor parallel × %1</source>
        <translation>张量并行 × %1</translation>
    </message>
    <message>
        <source>Optimizer state in CPU memory</source>
        <translation>优化器状态放在 CPU 内存</translation>
    </message>
    <message>
        <source>Optimizer state on the GPU</source>
        <translation>优化器状态放在 GPU 上</translation>
    </message>
    <message>
        <source>As set up</source>
        <translation>与当前设置相同</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>%1 GPUs</source>
        <translation>%1 块 GPU</translation>
    </message>
    <message>
        <source>it needs %1 more than the GPU holds, at a micro-batch of 1</source>
        <translation>即使微批次为 1，也比 GPU 容量多需要 %1</translation>
    </message>
    <message>
        <source>it reaches an effective batch %1 short of the target</source>
        <translation>其有效批次比目标少 %1</translation>
    </message>
    <message>
        <source>its optimizer step takes %1 longer than allowed</source>
        <translation>其优化器步骤比允许的时间长 %1</translation>
    </message>
    <message>
        <source>this GPU has no figures to estimate its step time</source>
        <translation>此 GPU 没有可用于估算步骤时间的性能数据</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已改变</translation>
    </message>
    <message>
        <source>same</source>
        <translation>相同</translation>
    </message>
</context>
<context>
    <name>headroom::report::ReportCanvas</name>
    <message>
        <source>Page %1 of %2</source>
        <translation>第 %1 页，共 %2 页</translation>
    </message>
</context>
<context>
    <name>headroom::report::ReportComposer</name>
    <message>
        <source>Untitled model</source>
        <translation>未命名模型</translation>
    </message>
    <message>
        <source>Generated %1 by Headroom %2, the GPU memory planner for deep-learning training</source>
        <translation>由 Headroom %2（深度学习训练的 GPU 显存规划工具）于 %1 生成</translation>
    </message>
    <message>
        <source>Set-up</source>
        <translation>训练配置</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>%1 (%2 trainable)</source>
        <translation>%1（可训练 %2）</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>%1, %2 memory</source>
        <translation>%1，显存 %2</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>%1 per GPU (micro-batch); effective batch %2</source>
        <translation>每 GPU %1（微批次）；有效批大小 %2</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>框架开销</translation>
    </message>
    <message>
        <source>Fits on the %1</source>
        <translation>%1 放得下</translation>
    </message>
    <message>
        <source>Does not fit on the %1</source>
        <translation>%1 放不下</translation>
    </message>
    <message>
        <source>headroom</source>
        <translation>剩余</translation>
    </message>
    <message>
        <source>shortfall</source>
        <translation>不足</translation>
    </message>
    <message>
        <source> Not even batch 1 fits: it needs %1.</source>
        <translation> 即使批大小为 1 也放不下：需要 %1。</translation>
    </message>
    <message>
        <source> Not even batch 1 fits.</source>
        <translation> 即使批大小为 1 也放不下。</translation>
    </message>
    <message>
        <source> Max batch: %1 (the largest batch Headroom considers).</source>
        <translation> 最大批大小：%1（Headroom 考虑的最大批大小）。</translation>
    </message>
    <message>
        <source> Max batch: %1 per GPU, an effective batch of %2.</source>
        <translation> 最大批大小：每 GPU %1，有效批大小为 %2。</translation>
    </message>
    <message>
        <source> Max batch: %1.</source>
        <translation> 最大批大小：%1。</translation>
    </message>
    <message>
        <source> Memory is per GPU, on each of %1 GPUs.</source>
        <translation> 显存按每块 GPU 计，共 %1 块 GPU。</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Component</source>
        <translation>组成部分</translation>
    </message>
    <message>
        <source>At batch %1</source>
        <translation>批大小 %1 时</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Per sample</source>
        <translation>每样本</translation>
    </message>
    <message>
        <source>fixed</source>
        <translation>固定</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>No throughput estimate: %1.</source>
        <translation>无法估算吞吐量：%1。</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Throughput (estimated)</source>
        <translation>吞吐量（估算）</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <source>%1 per optimizer step (%2)</source>
        <translation>每个优化器步 %1（%2）</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>受限于显存带宽</translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation>受限于算力</translation>
    </message>
    <message>
        <source>Samples per second</source>
        <translation>每秒样本数</translation>
    </message>
    <message>
        <source> across %1 GPUs</source>
        <translation>（%1 块 GPU 合计）</translation>
    </message>
    <message>
        <source>Tokens per second</source>
        <translation>每秒 token 数</translation>
    </message>
    <message>
        <source>%1 (%2 tokens per sample)</source>
        <translation>%1（每样本 %2 个 token）</translation>
    </message>
    <message>
        <source>%1 forward + %2 backward</source>
        <translation>前向 %1 + 反向 %2</translation>
    </message>
    <message>
        <source> + %1 recomputed</source>
        <translation> + 重计算 %1</translation>
    </message>
    <message>
        <source>FLOPs per sample</source>
        <translation>每样本 FLOPs</translation>
    </message>
    <message>
        <source>Assumed utilisation</source>
        <translation>假定利用率</translation>
    </message>
    <message>
        <source>%1 of %2 TFLOP/s peak</source>
        <translation>峰值 %2 TFLOP/s 的 %1</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>无法估算</translation>
    </message>
    <message>
        <source>Headroom cannot estimate this plan: %1.</source>
        <translation>Headroom 无法估算此方案：%1。</translation>
    </message>
    <message>
        <source> (at %1)</source>
        <translation>（位置：%1）</translation>
    </message>
    <message>
        <source> Fix the model and export the report again; the layer table below marks the layers concerned.</source>
        <translation> 请修正模型后重新导出报告；下方的层表标出了相关的层。</translation>
    </message>
    <message>
        <source>Memory versus batch size</source>
        <translation>显存与批大小</translation>
    </message>
    <message>
        <source>Layers (%1)</source>
        <translation>各层（%1）</translation>
    </message>
    <message>
        <source>Activations per sample: the bytes autograd saves for backward that this layer keeps first, for one sample. Batch-independent saved bytes (such as per-channel statistics) are part of the estimate but not of this column. FLOPs per sample: forward plus backward (input and weight gradients) for one sample; checkpoint recomputation is in the throughput section.</source>
        <translation>每样本激活值：autograd 为反向传播保存、且首先由该层保留的字节数（单个样本）。与批大小无关的保存量（如按通道的统计量）计入估算，但不在此列。每样本 FLOPs：单个样本的前向加反向（输入梯度和权重梯度）运算量；检查点重计算见吞吐量一节。</translation>
    </message>
    <message>
        <source>Activations.</source>
        <translation>激活值。</translation>
    </message>
    <message>
        <source>Peak memory.</source>
        <translation>峰值显存。</translation>
    </message>
    <message>
        <source>%1 keeps no state.</source>
        <translation>%1 不保存状态。</translation>
    </message>
    <message>
        <source>%1 keeps one float32 state tensor the size of each trainable parameter.</source>
        <translation>%1 为每个可训练参数保存一个同样大小的 float32 状态张量。</translation>
    </message>
    <message>
        <source>%1 keeps %2 float32 state tensors the size of each trainable parameter.</source>
        <translation>%1 为每个可训练参数保存 %2 个同样大小的 float32 状态张量。</translation>
    </message>
    <message>
        <source> Pure half-precision training adds a float32 master copy of the weights.</source>
        <translation> 纯半精度训练还会增加一份 float32 主权重副本。</translation>
    </message>
    <message>
        <source> Under autocast, weights, gradients and optimizer state stay float32, and the half copies of weights autocast caches for the step count as weights.</source>
        <translation> 在 autocast 下，权重、梯度和优化器状态保持 float32，autocast 为该步缓存的半精度权重副本计入权重。</translation>
    </message>
    <message>
        <source>Optimizer and precision.</source>
        <translation>优化器与精度。</translation>
    </message>
    <message>
        <source>Overhead and GPU memory.</source>
        <translation>开销与 GPU 显存。</translation>
    </message>
    <message>
        <source>Gradient accumulation.</source>
        <translation>梯度累积。</translation>
    </message>
    <message>
        <source>Each optimizer step runs %1 micro-batches of %2 samples; memory follows the micro-batch, and the gradients are kept between micro-batches.</source>
        <translation>每个优化器步运行 %1 个各含 %2 个样本的微批次；显存取决于微批次，梯度在微批次之间保留。</translation>
    </message>
    <message>
        <source>DDP: every GPU holds all weights, gradients and optimizer state, plus the gradient buckets the all-reduce uses.</source>
        <translation>DDP：每块 GPU 都保存全部权重、梯度和优化器状态，外加 all-reduce 使用的梯度桶。</translation>
    </message>
    <message>
        <source>ZeRO stage 1: each GPU keeps 1/N of the optimizer state.</source>
        <translation>ZeRO 第 1 阶段：每块 GPU 保存 1/N 的优化器状态。</translation>
    </message>
    <message>
        <source>%1: each GPU keeps 1/N of the optimizer state and of the gradients.</source>
        <translation>%1：每块 GPU 保存 1/N 的优化器状态和梯度。</translation>
    </message>
    <message>
        <source>%1: each GPU keeps 1/N of the weights, the gradients and the optimizer state, and gathers each layer&apos;s full weights into communication buffers when it runs.</source>
        <translation>%1：每块 GPU 保存 1/N 的权重、梯度和优化器状态，并在每层运行时把该层的完整权重收集到通信缓冲区中。</translation>
    </message>
    <message>
        <source> Here N is 1 data-parallel GPU.</source>
        <translation> 此处 N 为 1 块数据并行 GPU。</translation>
    </message>
    <message>
        <source> Here N is %1 data-parallel GPUs.</source>
        <translation> 此处 N 为 %1 块数据并行 GPU。</translation>
    </message>
    <message>
        <source> Tensor parallelism splits the attention and MLP layers&apos; weights and activations %1 ways.</source>
        <translation> 张量并行把注意力层和 MLP 层的权重与激活值切分为 %1 份。</translation>
    </message>
    <message>
        <source> The optimizer state (with any float32 master weights) lives in CPU memory and takes no GPU memory.</source>
        <translation> 优化器状态（连同 float32 主权重）存放在 CPU 内存中，不占用 GPU 显存。</translation>
    </message>
    <message>
        <source> Every figure is for one GPU; the chart&apos;s line is one GPU&apos;s memory.</source>
        <translation> 所有数值均按单块 GPU 计；图中的线表示单块 GPU 的显存。</translation>
    </message>
    <message>
        <source>Several GPUs.</source>
        <translation>多 GPU。</translation>
    </message>
    <message>
        <source>8-bit optimizer.</source>
        <translation>8 位优化器。</translation>
    </message>
    <message>
        <source>Optimizer state is kept in 8 bits with block-wise scales (bitsandbytes); tensors below 4,096 elements stay 32-bit.</source>
        <translation>优化器状态以 8 位保存，并按块缩放（bitsandbytes）；少于 4,096 个元素的张量仍为 32 位。</translation>
    </message>
    <message>
        <source>Checkpointing.</source>
        <translation>激活检查点。</translation>
    </message>
    <message>
        <source>Each checkpointed block keeps only its input; its activations are recomputed during backward, so one block&apos;s activations are alive at a time. The recomputation costs one more forward pass through those blocks.</source>
        <translation>每个检查点块只保留其输入；其激活值在反向传播时重新计算，因此同一时间只有一个块的激活值存在。重计算的代价是让这些块多做一次前向传播。</translation>
    </message>
    <message>
        <source>Selective recomputation keeps everything but the attention score matrices, which backward recomputes.</source>
        <translation>选择性重计算保留除注意力分数矩阵以外的一切，注意力分数矩阵在反向传播时重新计算。</translation>
    </message>
    <message>
        <source>LoRA.</source>
        <translation>LoRA。</translation>
    </message>
    <message>
        <source>Targeted Linear layers get trainable rank-%1 adapters; every other parameter is frozen, so only the adapters have gradients and optimizer state.%2</source>
        <translation>目标 Linear 层获得可训练的秩为 %1 的适配器；其余参数全部冻结，因此只有适配器有梯度和优化器状态。%2</translation>
    </message>
    <message>
        <source> QLoRA stores the frozen base weights in 4-bit NF4 with double-quantised constants; the adapters are half precision.</source>
        <translation> QLoRA 以 4 位 NF4 存储冻结的基础权重，量化常数再做二次量化；适配器为半精度。</translation>
    </message>
    <message>
        <source>Throughput.</source>
        <translation>吞吐量。</translation>
    </message>
    <message>
        <source>A roofline estimate: the step&apos;s FLOPs at %1 of the GPU&apos;s peak for the precision, or the bytes it must move at the GPU&apos;s memory bandwidth, whichever takes longer. Real runs vary with kernels, data loading and communication.</source>
        <translation>屋顶线模型估算：取以下两者中耗时较长者——按该精度下 GPU 峰值算力的 %1 执行该步的 FLOPs，或按 GPU 显存带宽搬运该步必须移动的字节。实际运行会因内核、数据加载和通信而不同。</translation>
    </message>
    <message>
        <source>Not modelled.</source>
        <translation>未建模。</translation>
    </message>
    <message>
        <source>docs/memory-model.md in Headroom&apos;s documentation describes the memory model, its formulas and their sources. In short:</source>
        <translation>Headroom 文档中的 docs/memory-model.md 介绍了显存模型、其公式及出处。简而言之：</translation>
    </message>
    <message>
        <source>Assumptions and method</source>
        <translation>假设与方法</translation>
    </message>
    <message>
        <source>Memory plan for %1</source>
        <translation>%1 的显存规划</translation>
    </message>
    <message>
        <source>The peak of one training step by component from batch %1 to %2, stacked. At batch %3 the peak holds %4 fixed plus %5 per sample.</source>
        <translation>批大小从 %1 到 %2 时单个训练步的峰值，按组成部分堆叠。在批大小 %3 时，峰值包含固定的 %4，外加每样本 %5。</translation>
    </message>
    <message>
        <source>Implementation</source>
        <translation>实现方式</translation>
    </message>
    <message>
        <source>During one step</source>
        <translation>单步之内</translation>
    </message>
    <message>
        <source>The tensors autograd saves for the backward pass, with PyTorch 2.x semantics on CUDA: each saved storage is counted once, at the layer that first keeps it, the loss&apos;s included. The input batch with its labels and the transient (the activation gradients alive at the peak, or the optimizer step&apos;s temporaries) are components of their own.</source>
        <translation>autograd 为反向传播保存的张量，采用 PyTorch 2.x 在 CUDA 上的语义：每个保存的存储只计一次，计入首先保留它的层，损失函数的也包括在内。输入批次及其标签，以及临时量（峰值时存在的激活梯度，或优化器步的临时张量）各自单独作为组成部分。</translation>
    </message>
    <message>
        <source>Headroom simulates one training step as PyTorch 2.x runs it: the forward pass layer by layer (each output allocated, a tensor nothing keeps freed after its last use), the backward pass in reverse (activation gradients alive until their layer&apos;s backward has run, parameter gradients created when first reached, as zero_grad(set_to_none=True) leaves them, saved tensors freed once no backward needs them), then the optimizer step with the temporaries of its implementation (here %1, as torch.optim names it). The total is the highest point of that step, and the breakdown is what is alive then. The first step has no optimizer state until its optimizer step creates it. Every moment&apos;s memory is a fixed part plus a part per sample.</source>
        <translation>Headroom 按 PyTorch 2.x 的运行方式模拟一个训练步：逐层前向传播（为每个输出分配内存，没有谁保留的张量在最后一次使用后释放），再反向逆序执行反向传播（激活梯度存在到其所在层的反向计算完成为止；参数梯度在首次到达时创建，正如 zero_grad(set_to_none=True) 留下的状态；保存的张量在不再有反向计算需要时释放），最后是优化器步及其实现方式的临时张量（此处为 %1，即 torch.optim 中的名称）。合计为该步的最高点，各组成部分即该时刻存在的内容。第一步在其优化器步创建优化器状态之前没有优化器状态。每个时刻的显存都是固定部分加上每样本部分。</translation>
    </message>
    <message>
        <source>Goal: an effective batch of %1</source>
        <translation>目标：有效批次 %1</translation>
    </message>
    <message>
        <source>Goal: the largest micro-batch that fits</source>
        <translation>目标：能放下的最大微批次</translation>
    </message>
    <message>
        <source>, optimizer steps of at most %1</source>
        <translation>，优化器步骤最长 %1</translation>
    </message>
    <message>
        <source>. Fastest first (estimated samples per second per GPU); ★ marks the Pareto front, where no other set-up is as fast with less memory; &quot;changed&quot;: the set-up computes something different from the one above.</source>
        <translation>。按速度从快到慢排列（估算的每 GPU 每秒样本数）；★ 标记帕累托前沿：没有其他设置能以更少内存达到同样速度；“已改变”：该设置的计算结果与上面的设置不同。</translation>
    </message>
    <message>
        <source>Set-ups that fit</source>
        <translation>能放下的设置</translation>
    </message>
    <message>
        <source>Nothing fits.</source>
        <translation>没有能放下的设置。</translation>
    </message>
    <message>
        <source>Nothing fits. Closest: %1 (%2), but %3.</source>
        <translation>没有能放下的设置。最接近的：%1（%2），但%3。</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>What changes</source>
        <translation>改变之处</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>最大批次</translation>
    </message>
    <message>
        <source>Samples/s/GPU</source>
        <translation>样本/秒/GPU</translation>
    </message>
    <message>
        <source>Warning.</source>
        <translation>警告。</translation>
    </message>
    <message>
        <source>Warning (%1).</source>
        <translation>警告（%1）。</translation>
    </message>
    <message>
        <source> The max batch is the largest whose reserved peak fits in %1, keeping %2 spare for what the model cannot see exactly.</source>
        <translation>最大批量是预留峰值能放进 %1 的最大批量，并为模型无法精确预见的部分留出 %2 余量。</translation>
    </message>
    <message>
        <source> Planned batch: the micro-batch (× accumulation steps × GPUs) each set-up runs to reach the goal, not the set-up&apos;s batch.</source>
        <translation> 计划批次：每个设置为达到目标所运行的微批次（× 累积步数 × GPU 数），而非当前设置的批次。</translation>
    </message>
    <message>
        <source>Planned batch</source>
        <translation>计划批次</translation>
    </message>
    <message>
        <source>The network is empty</source>
        <translation>网络为空</translation>
    </message>
    <message>
        <source>It has no layers, so there is no training step to estimate. Add layers to see how much memory training it takes, then export the report again.</source>
        <translation>它没有层，因此没有可估算的训练步。添加层后即可看到训练所需的显存，然后重新导出报告。</translation>
    </message>
    <message>
        <source> With expandable_segments:True, one segment per pool grows by mapping pages instead.</source>
        <translation>启用 expandable_segments:True 时，每个池只有一个段，通过映射页面来增长。</translation>
    </message>
    <message>
        <source> Reserved by PyTorch&apos;s caching allocator: not simulated (%1). The max batch is from the tensors alone.</source>
        <translation>PyTorch 缓存分配器的预留内存：未模拟（%1）。最大批次仅按张量计算。</translation>
    </message>
    <message>
        <source>Framework overhead is the memory outside PyTorch&apos;s caching allocator, here %1: by default the CUDA context of the GPU (driver state and the kernel images of CUDA, cuBLAS and cuDNN), whose real size depends on the driver and the CUDA version.</source>
        <translation>框架开销是 PyTorch 缓存分配器之外的显存，此处为 %1：默认是该 GPU 的 CUDA 上下文（驱动状态以及 CUDA、cuBLAS 和 cuDNN 的内核映像），其实际大小取决于驱动和 CUDA 版本。</translation>
    </message>
    <message>
        <source>The GPU&apos;s memory is as the vendor states it; the display, the driver and other processes may hold part of it.</source>
        <translation>GPU 显存按厂商标称；显示、驱动和其他进程可能占用其中一部分。</translation>
    </message>
    <message>
        <source>The caching allocator&apos;s rounding, cached segments and fragmentation and the cuBLAS and cuDNN workspaces were not simulated for this plan (%1): the max batch is from the tensors alone.</source>
        <translation>此计划未模拟缓存分配器的取整、缓存的段和碎片，以及 cuBLAS 和 cuDNN 的工作区（%1）：最大批次仅由张量得出。</translation>
    </message>
    <message>
        <source>The allocator&apos;s rounding, cached segments and fragmentation and the cuBLAS and cuDNN workspaces are in the reserved figure, from a replay of the step&apos;s allocations through the allocator&apos;s rules.</source>
        <translation>分配器的取整、缓存的段和碎片，以及 cuBLAS 和 cuDNN 的工作区，都计入预留值；预留值来自按分配器规则重放训练步的分配。</translation>
    </message>
    <message>
        <source>Several CUDA streams, CUDA graphs, torch.compile&apos;s memory planning, NCCL&apos;s own buffers, and tensors the training loop keeps beyond the step (a logged loss, metrics, a batch prefetched by the data loader).</source>
        <translation>多个 CUDA 流、CUDA 图、torch.compile 的内存规划、NCCL 自身的缓冲区，以及训练循环在训练步之外保留的张量（记录的损失、指标、数据加载器预取的批次）。</translation>
    </message>
    <message>
        <source> PyTorch&apos;s caching allocator reserves %1 at its peak for %2 allocated (tensors %3, cuBLAS and cuDNN workspaces %4): it rounds every block, holds them in 2 MiB and 20 MiB segments and keeps freed blocks cached, and cuBLAS and cuDNN take workspaces from it (%5 for cuBLAS). With the %6 outside it (the CUDA context), the GPU holds %7.</source>
        <translation> PyTorch 的缓存分配器在峰值时为已分配的 %2（张量 %3，cuBLAS 和 cuDNN 工作区 %4）保留 %1：它对每个块向上取整，把块放在 2 MiB 和 20 MiB 的段中，并缓存已释放的块；cuBLAS 和 cuDNN 从它取得工作区（cuBLAS 为 %5）。加上分配器之外的 %6（CUDA 上下文），GPU 占用 %7。</translation>
    </message>
    <message>
        <source>Batch %1: the GPU would hold %2 of %3 at the peak, leaving %4, less than the margin of %5 the max batch keeps for what the model cannot see exactly.</source>
        <translation>批次 %1：峰值时 GPU 将占用 %3 中的 %2，剩余 %4，小于最大批次为模型无法精确看到的部分保留的余量 %5。</translation>
    </message>
    <message>
        <source>Batch %1: the GPU holds %2 of %3 at the peak (PyTorch&apos;s reserved memory and the overhead): %4 %5. The tensors alone peak at %6.</source>
        <translation>批次 %1：峰值时 GPU 占用 %3 中的 %2（PyTorch 保留的内存加开销）：%4 %5。仅张量的峰值为 %6。</translation>
    </message>
    <message>
        <source>Batch %1&apos;s tensors need %2 of %3: %4 %5.</source>
        <translation>批次 %1 的张量需要 %3 中的 %2：%4 %5。</translation>
    </message>
    <message>
        <source>At batch %1 the step&apos;s tensors peak at %2, the first step&apos;s at %3.</source>
        <translation>批次 %1 时，该步骤张量的峰值为 %2，第一步为 %3。</translation>
    </message>
    <message>
        <source>The plan beside the run recorded in %1 (%2): compared at batch %3%4, %5%6.</source>
        <translation>计划与 %1（%2）中记录的运行对比：批大小 %3%4，%5%6。</translation>
    </message>
    <message>
        <source> (the plan&apos;s: the run&apos;s batch was not given)</source>
        <translation>（计划的值：未给出运行的批大小）</translation>
    </message>
    <message>
        <source> (the plan&apos;s: the run&apos;s precision was not given)</source>
        <translation>（计划的值：未给出运行的精度）</translation>
    </message>
    <message>
        <source>Peak allocated: predicted %1, measured %2, %3. Peak reserved: predicted %4, measured %5, %6. Differences are measured minus predicted.</source>
        <translation>已分配峰值：预测 %1，实测 %2，%3。预留峰值：预测 %4，实测 %5，%6。差值为实测减预测。</translation>
    </message>
    <message>
        <source>Plan and measured run</source>
        <translation>计划与实测运行</translation>
    </message>
    <message>
        <source>The first step (it creates the optimizer state)</source>
        <translation>第一步（创建优化器状态）</translation>
    </message>
    <message>
        <source>A steady step</source>
        <translation>稳定的一步</translation>
    </message>
    <message>
        <source>Memory over the step&apos;s phases, each phase as wide as the other whatever its length: the plan&apos;s replay at batch %1 and the run&apos;s step %2. Solid: allocated; dashed: reserved.</source>
        <translation>一步中各阶段的内存（各阶段不论长短宽度相同）：计划在批大小 %1 下的重放与运行的第 %2 步。实线：已分配；虚线：预留。</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <source>Per phase</source>
        <translation>按阶段</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Allocated, predicted</source>
        <translation>已分配，预测</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>difference</source>
        <translation>差值</translation>
    </message>
    <message>
        <source>Reserved, predicted</source>
        <translation>预留，预测</translation>
    </message>
    <message>
        <source>Per component, alive at the allocated peak</source>
        <translation>按组成部分（已分配峰值时存活的）</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>差值</translation>
    </message>
    <message>
        <source>and %1 more blocks</source>
        <translation>另有 %1 个块</translation>
    </message>
    <message>
        <source>Not attributed to the plan (largest first)</source>
        <translation>未能对应到计划的块（从大到小）</translation>
    </message>
    <message>
        <source>Set-up differences</source>
        <translation>设置差异</translation>
    </message>
    <message>
        <source>Fixed %1 and %2 per sample (from the run&apos;s batch %3), applied with --calibration-fixed and --calibration-per-sample or the GUI&apos;s calibration. %4</source>
        <translation>固定 %1，每样本 %2（取自运行的批大小 %3），可用 --calibration-fixed 和 --calibration-per-sample 或 GUI 的校准应用。%4</translation>
    </message>
    <message>
        <source>None: %1</source>
        <translation>无：%1</translation>
    </message>
    <message>
        <source>Calibration proposal</source>
        <translation>校准建议</translation>
    </message>
    <message>
        <source>What could not be compared</source>
        <translation>无法对比的内容</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 stages, %2, %3 micro-batches (the accumulation steps), bubble %4 of the step. Each stage&apos;s GPU holds its layers and the micro-batches its schedule keeps in flight; the heaviest (in bold) is the plan&apos;s answer: the summary, the charts and the max batch are its.</source>
        <translation>%1 个流水线阶段，%2，%3 个微批次（即梯度累积步数），气泡占一步的 %4。每个阶段的 GPU 保存其层以及调度保持在途的微批次；最重的阶段（粗体）就是计划的答案：摘要、图表和最大批次都是它的。</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>流水线阶段</translation>
    </message>
    <message>
        <source>Stage %1: %2</source>
        <translation>阶段 %1：%2</translation>
    </message>
    <message>
        <source> Memory is per GPU: a GPU of the heaviest pipeline stage, of %1 GPUs in all.</source>
        <translation> 显存按每块 GPU 计：最重流水线阶段的一块 GPU，共 %1 块 GPU。</translation>
    </message>
    <message>
        <source>%1. Searched: %2. The layouts whose heaviest GPU fits with what PyTorch&apos;s caching allocator reserves, fastest first by the throughput model (with the pipeline bubble).</source>
        <translation>%1。已搜索：%2。列出最重 GPU 连同 PyTorch 缓存分配器预留的内存仍能容纳的布局，按吞吐量模型（含流水线气泡）从快到慢排列。</translation>
    </message>
    <message>
        <source>Cluster layouts</source>
        <translation>集群布局</translation>
    </message>
    <message>
        <source>Nothing fits: %1.</source>
        <translation>没有可容纳的布局：%1。</translation>
    </message>
    <message>
        <source>TP</source>
        <translation>TP</translation>
    </message>
    <message>
        <source>PP</source>
        <translation>PP</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>调度</translation>
    </message>
    <message>
        <source>CP</source>
        <translation>CP</translation>
    </message>
    <message>
        <source>EP</source>
        <translation>EP</translation>
    </message>
    <message>
        <source>DP</source>
        <translation>DP</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>分片</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批次</translation>
    </message>
    <message>
        <source>Tensors</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>Reserved</source>
        <translation>预留</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>每步时间</translation>
    </message>
    <message>
        <source>Bubble</source>
        <translation>气泡</translation>
    </message>
    <message>
        <source>Tokens/s/GPU</source>
        <translation>token/秒/GPU</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>TP tensor (with sequence) parallel, PP pipeline stages, CP context parallel, EP expert parallel, DP data parallel; Batch the micro-batch × micro-batches per step on each data-parallel rank; Tensors the heaviest pipeline stage&apos;s GPU&apos;s peak by the tensors, Reserved what PyTorch&apos;s caching allocator reserves there at its peak plus the overhead; Step the slowest stage&apos;s step with the pipeline bubble (no communication timed).</source>
        <translation>TP：张量（含序列）并行；PP：流水线阶段；CP：上下文并行；EP：专家并行；DP：数据并行；批次：每个数据并行 rank 上的微批次 × 每步微批次数；张量：最重流水线阶段所在 GPU 按张量计的峰值；预留：PyTorch 缓存分配器在该处峰值时预留的内存加上开销；每步时间：最慢阶段含流水线气泡的一步（未计通信时间）。</translation>
    </message>
    <message>
        <source>Left out: %1</source>
        <translation>未包含：%1</translation>
    </message>
</context>
<context>
    <name>headroom::report::StepChart</name>
    <message>
        <source>End of the forward pass, after layer %1</source>
        <translation>前向传播结束，位于层 %1 之后</translation>
    </message>
    <message>
        <source>Forward pass, layer %1</source>
        <translation>前向传播，层 %1</translation>
    </message>
    <message>
        <source>Backward pass, recomputing layer %1 (checkpointing)</source>
        <translation>反向传播，正在重新计算层 %1（激活检查点）</translation>
    </message>
    <message>
        <source>Backward pass, layer %1</source>
        <translation>反向传播，层 %1</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>优化器步</translation>
    </message>
    <message>
        <source>Peak %1 · %2</source>
        <translation>峰值 %1 · %2</translation>
    </message>
    <message>
        <source>at the end of the forward pass, after layer %1</source>
        <translation>在前向传播结束时，位于层 %1 之后</translation>
    </message>
    <message>
        <source>in the forward pass, at layer %1</source>
        <translation>在前向传播中，位于层 %1</translation>
    </message>
    <message>
        <source>in the backward pass, while checkpointing recomputes layer %1</source>
        <translation>在反向传播中，激活检查点正在重新计算层 %1 时</translation>
    </message>
    <message>
        <source>in the backward pass, at layer %1</source>
        <translation>在反向传播中，位于层 %1</translation>
    </message>
    <message>
        <source>in the optimizer step</source>
        <translation>在优化器步中</translation>
    </message>
    <message>
        <source>The first training step at batch %1 (no optimizer state before its optimizer step): %2 at its peak, %3.</source>
        <translation>批大小 %1 时的第一个训练步（其优化器步之前没有优化器状态）：峰值 %2，%3。</translation>
    </message>
    <message>
        <source>One training step at batch %1: %2 at its peak, %3.</source>
        <translation>批大小 %1 时的一个训练步：峰值 %2，%3。</translation>
    </message>
    <message>
        <source>The last of %1 micro-batches: the accumulated gradients are alive.</source>
        <translation>%1 个微批次中的最后一个：累积的梯度仍然存在。</translation>
    </message>
    <message>
        <source>The line: what PyTorch&apos;s caching allocator holds reserved, plus the overhead, %1 at most; it stays above the tensors, as the allocator rounds blocks, keeps freed ones cached and grows in whole segments.</source>
        <translation>折线：PyTorch 缓存分配器预留的内存加上开销，最多 %1；它始终高于张量，因为分配器对块取整、缓存已释放的块并以整段增长。</translation>
    </message>
    <message>
        <source>The solid line adds to the stack the cuBLAS and cuDNN workspaces PyTorch allocates through its cache, up to %1: torch.cuda.max_memory_allocated() counts them.</source>
        <translation>实线在堆叠之上加上 PyTorch 通过其缓存分配的 cuBLAS 和 cuDNN 工作区，最多 %1：torch.cuda.max_memory_allocated() 会计入它们。</translation>
    </message>
</context>
<context>
    <name>headroom::report::chartparts</name>
    <message>
        <source>Reserved (PyTorch&apos;s cache + overhead)</source>
        <translation>预留（PyTorch 缓存 + 开销）</translation>
    </message>
    <message>
        <source>Allocated + workspaces</source>
        <translation>已分配 + 工作区</translation>
    </message>
</context>
<context>
    <name>headroom::report::plantext</name>
    <message>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个 token</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <source>%1 micro-batches per optimizer step</source>
        <translation>每个优化器步 %1 个微批次</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>Offload</source>
        <translation>卸载</translation>
    </message>
    <message>
        <source>optimizer state in CPU memory</source>
        <translation>优化器状态位于 CPU 内存</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>8-bit (block-wise quantised)</source>
        <translation>8 位（按块量化）</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>激活检查点</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>every Linear layer but the output head</source>
        <translation>除输出头以外的所有 Linear 层</translation>
    </message>
    <message>
        <source>QLoRA rank %1 on %2</source>
        <translation>QLoRA，秩 %1，作用于 %2</translation>
    </message>
    <message>
        <source>LoRA rank %1 on %2</source>
        <translation>LoRA，秩 %1，作用于 %2</translation>
    </message>
    <message>
        <source>, dropout %1</source>
        <translation>，dropout %1</translation>
    </message>
    <message>
        <source>; base weights 4-bit NF4</source>
        <translation>；基础权重为 4 位 NF4</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>%1 of peak assumed</source>
        <translation>假定为峰值的 %1</translation>
    </message>
    <message>
        <source>Checkpointing (%1) adds %2 of activations at batch %3 (+%4): checkpointing these layers costs memory, and +%5 forward compute</source>
        <translation>激活检查点（%1）在批大小 %3 时反而增加 %2 激活值（+%4）：对这些层做检查点会多占显存，并增加 +%5 前向计算</translation>
    </message>
    <message>
        <source>Checkpointing (%1) saves %2 of activations at batch %3 (%4) for +%5 forward compute</source>
        <translation>激活检查点（%1）在批大小 %3 时节省 %2 激活值（%4），代价是 +%5 前向计算</translation>
    </message>
    <message>
        <source>LoRA adds %1 adapter parameters: %2 of %3 parameters train (%4)</source>
        <translation>LoRA 增加 %1 个适配器参数：%3 个参数中有 %2 个参与训练（%4）</translation>
    </message>
    <message>
        <source>1 step</source>
        <translation>1 步</translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation>%1 步</translation>
    </message>
    <message>
        <source>1 replica</source>
        <translation>1 个副本</translation>
    </message>
    <message>
        <source>%1 replicas</source>
        <translation>%1 个副本</translation>
    </message>
    <message>
        <source>1 GPU</source>
        <translation>1 块 GPU</translation>
    </message>
    <message>
        <source>%1 GPUs</source>
        <translation>%1 块 GPU</translation>
    </message>
    <message>
        <source>%1 = %2 x %3 x %4</source>
        <translation>%1 = %2 × %3 × %4</translation>
    </message>
    <message>
        <source>The peak is the optimizer step: weights, gradients and optimizer state with the step&apos;s own temporaries, after the activations are freed</source>
        <translation>峰值出现在优化器步：激活值释放之后，权重、梯度和优化器状态，加上该步自身的临时张量</translation>
    </message>
    <message>
        <source>The peak is in the backward pass, while checkpointing recomputes layer %1</source>
        <translation>峰值出现在反向传播中，激活检查点正在重新计算层 %1 时</translation>
    </message>
    <message>
        <source>The peak is in the backward pass, at layer %1</source>
        <translation>峰值出现在反向传播中，位于层 %1</translation>
    </message>
    <message>
        <source>The peak is in the forward pass, at layer %1</source>
        <translation>峰值出现在前向传播中，位于层 %1</translation>
    </message>
    <message>
        <source>%1, in a micro-batch after the first (the accumulated gradients are alive)</source>
        <translation>%1，且在第一个之后的微批次中（累积的梯度仍然存在）</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>校准</translation>
    </message>
    <message>
        <source>%1 fixed + %2 per sample</source>
        <translation>固定 %1 + 每样本 %2</translation>
    </message>
    <message>
        <source>measured at batch %1 in %2</source>
        <translation>在 %2 中以批大小 %1 测得</translation>
    </message>
    <message>
        <source>measured at batch %1</source>
        <translation>以批大小 %1 测得</translation>
    </message>
    <message>
        <source>measured in %1</source>
        <translation>在 %1 中测得</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>In flight</source>
        <translation>在途微批次</translation>
    </message>
    <message>
        <source>Peak (tensors)</source>
        <translation>峰值（张量）</translation>
    </message>
    <message>
        <source>Held at peak</source>
        <translation>峰值时占用</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>最大批次</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>能否放下</translation>
    </message>
    <message>
        <source>Stage %1 of %2 (heaviest)</source>
        <translation>第 %1 阶段，共 %2 个（最重）</translation>
    </message>
    <message>
        <source>%1 tensor-parallel</source>
        <translation>%1 张量并行</translation>
    </message>
    <message>
        <source>%1 pipeline-parallel</source>
        <translation>%1 流水线并行</translation>
    </message>
    <message>
        <source>%1 context-parallel</source>
        <translation>%1 上下文并行</translation>
    </message>
    <message>
        <source>%1 data-parallel</source>
        <translation>%1 数据并行</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>%1 (%2 virtual stages)</source>
        <translation>%1（%2 个虚拟阶段）</translation>
    </message>
    <message>
        <source>1 micro-batch</source>
        <translation>1 个微批次</translation>
    </message>
    <message>
        <source>%1 micro-batches</source>
        <translation>%1 个微批次</translation>
    </message>
    <message>
        <source>%1, layers per stage %2</source>
        <translation>%1，每阶段层数 %2</translation>
    </message>
    <message>
        <source>Sequence parallel</source>
        <translation>序列并行</translation>
    </message>
    <message>
        <source>Context parallel</source>
        <translation>上下文并行</translation>
    </message>
    <message>
        <source>%1 ranks, %2</source>
        <translation>%1 个 rank，%2</translation>
    </message>
    <message>
        <source>%1 expert-parallel</source>
        <translation>%1 专家并行</translation>
    </message>
    <message>
        <source>%1 x %2 expert-tensor-parallel</source>
        <translation>%1 x %2 专家张量并行</translation>
    </message>
    <message>
        <source>Experts</source>
        <translation>专家</translation>
    </message>
    <message>
        <source>Activation offload</source>
        <translation>激活卸载</translation>
    </message>
    <message>
        <source>%1 in CPU memory</source>
        <translation>%1 存于 CPU 内存</translation>
    </message>
    <message>
        <source>%1 (heaviest)</source>
        <translation>%1（最重）</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>norms and dropouts split over the %1 tensor-parallel ranks</source>
        <translation>归一化和 dropout 分到 %1 个张量并行 rank 上</translation>
    </message>
    <message>
        <source>interleaved ×%1</source>
        <translation>交错 ×%1</translation>
    </message>
    <message>
        <source>zero bubble</source>
        <translation>零气泡</translation>
    </message>
    <message>
        <source>%1 + offload</source>
        <translation>%1 + 卸载</translation>
    </message>
    <message>
        <source>Selective</source>
        <translation>选择性</translation>
    </message>
    <message>
        <source>Per block</source>
        <translation>按块</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 / %2</translation>
    </message>
    <message>
        <source>%1 × %2 (%3), %4 per node, global batch %5 (micro-batch × accumulation steps × data parallel)</source>
        <translation>%1 × %2（%3），每节点 %4 个，全局批次 %5（微批次 × 累积步数 × 数据并行）</translation>
    </message>
    <message>
        <source>%1, %2 worked out (%3, %4, %5)</source>
        <translation>%1，计算了 %2 个（%3，%4，%5）</translation>
    </message>
    <message>
        <source>%1 layout</source>
        <translation>%1 个布局</translation>
    </message>
    <message>
        <source>%1 layouts</source>
        <translation>%1 个布局</translation>
    </message>
    <message>
        <source>%1 analysis</source>
        <translation>%1 次分析</translation>
    </message>
    <message>
        <source>%1 analyses</source>
        <translation>%1 次分析</translation>
    </message>
    <message>
        <source>%1 step model</source>
        <translation>%1 个步骤模型</translation>
    </message>
    <message>
        <source>%1 step models</source>
        <translation>%1 个步骤模型</translation>
    </message>
    <message>
        <source>%1 allocator replay</source>
        <translation>%1 次分配器重放</translation>
    </message>
    <message>
        <source>%1 allocator replays</source>
        <translation>%1 次分配器重放</translation>
    </message>
</context>
<context>
    <name>headroom::ui::AttributeEditor</name>
    <message>
        <source>sizes</source>
        <translation>尺寸</translation>
    </message>
    <message>
        <source>same for all</source>
        <translation>全部相同</translation>
    </message>
    <message>
        <source>e.g. 768 or 16, 16</source>
        <translation>例如 768 或 16, 16</translation>
    </message>
    <message>
        <source>inferred</source>
        <translation>自动推断</translation>
    </message>
    <message>
        <source>whole numbers from %1 up</source>
        <translation>不小于 %1 的整数</translation>
    </message>
    <message>
        <source>whole numbers from %1 to %2</source>
        <translation>%1 到 %2 的整数</translation>
    </message>
    <message>
        <source>%1, or %2</source>
        <translation>%1，或 %2</translation>
    </message>
    <message>
        <source>numbers above %1, up to %2</source>
        <translation>大于 %1 且不超过 %2 的数</translation>
    </message>
    <message>
        <source>numbers from %1 to %2</source>
        <translation>%1 到 %2 的数</translation>
    </message>
    <message>
        <source>numbers above %1</source>
        <translation>大于 %1 的数</translation>
    </message>
    <message>
        <source>numbers from %1 up</source>
        <translation>不小于 %1 的数</translation>
    </message>
    <message>
        <source>numbers up to %1</source>
        <translation>不超过 %1 的数</translation>
    </message>
    <message>
        <source>any number</source>
        <translation>任意数</translation>
    </message>
    <message>
        <source>on or off</source>
        <translation>开或关</translation>
    </message>
    <message>
        <source>one of %1</source>
        <translation>%1 之一</translation>
    </message>
    <message>
        <source>Allowed: %1.</source>
        <translation>允许的值：%1。</translation>
    </message>
    <message>
        <source>Leave %1 out of the model file: Headroom uses %2</source>
        <translation>在模型文件中省略 %1（Headroom 取值：%2）</translation>
    </message>
    <message>
        <source>%1 needs at least one size.</source>
        <translation>%1 至少需要一个尺寸。</translation>
    </message>
    <message>
        <source>“%1” is not allowed: %2 takes %3, separated by commas.</source>
        <translation>不允许“%1”：%2 接受以逗号分隔的%3。</translation>
    </message>
    <message>
        <source>any text up to %1 characters</source>
        <translation>不超过 %1 个字符的任意文本</translation>
    </message>
</context>
<context>
    <name>headroom::ui::BatchPanel</name>
    <message>
        <source>Batch size, 1 to 4096 on a logarithmic scale (each tick doubles it)</source>
        <translation>批大小，1 到 4096，对数刻度（每一格翻倍）</translation>
    </message>
    <message>
        <source>Set to Max</source>
        <translation>设为最大</translation>
    </message>
    <message>
        <source>Sets the batch size to the largest that fits the GPU</source>
        <translation>将批大小设为 GPU 能容纳的最大值</translation>
    </message>
    <message>
        <source>Batch size:</source>
        <translation>批大小：</translation>
    </message>
    <message>
        <source>Max batch: %1</source>
        <translation>最大批大小：%1</translation>
    </message>
    <message>
        <source>Does not fit, even at batch 1</source>
        <translation>即使批大小为 1 也放不下</translation>
    </message>
    <message>
        <source>Headroom: %1</source>
        <translation>剩余：%1</translation>
    </message>
    <message>
        <source>Shortfall: %1</source>
        <translation>不足：%1</translation>
    </message>
    <message>
        <source>Max batch: —</source>
        <translation>最大批大小：—</translation>
    </message>
    <message>
        <source>Total: —</source>
        <translation>合计：—</translation>
    </message>
    <message>
        <source>Max micro-batch per GPU: %1</source>
        <translation>每 GPU 最大微批大小：%1</translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation>%1 步</translation>
    </message>
    <message>
        <source>%1 GPUs</source>
        <translation>%1 块 GPU</translation>
    </message>
    <message>
        <source>Effective batch: %1 (%2); at most %3</source>
        <translation>有效批大小：%1（%2）；最多 %3</translation>
    </message>
    <message>
        <source>Samples per optimizer step: micro-batch × accumulation steps × data-parallel GPUs</source>
        <translation>每个优化器步的样本数：微批大小 × 累积步数 × 数据并行 GPU 数</translation>
    </message>
    <message>
        <source>Max micro-batch per GPU: —</source>
        <translation>每 GPU 最大微批大小：—</translation>
    </message>
    <message>
        <source>Per GPU: —</source>
        <translation>每 GPU：—</translation>
    </message>
    <message>
        <source>Step: %1 · %2 samples/s</source>
        <translation>单步：%1 · %2 样本/秒</translation>
    </message>
    <message>
        <source> · %1 tokens/s</source>
        <translation> · %1 token/秒</translation>
    </message>
    <message>
        <source>, memory-bound</source>
        <translation>，受限于显存带宽</translation>
    </message>
    <message>
        <source>Per optimizer step and GPU: %1 (forward %2, backward %3, recomputation %4 per sample); compute %5, memory traffic %6</source>
        <translation>每个优化器步、每块 GPU：%1（每样本前向 %2、反向 %3、重计算 %4）；计算 %5，显存访问 %6</translation>
    </message>
    <message>
        <source>Throughput: — (%1)</source>
        <translation>吞吐量：—（%1）</translation>
    </message>
    <message>
        <source>; LoRA adapters: %1</source>
        <translation>；LoRA 适配器：%1</translation>
    </message>
    <message>
        <source>The network is empty</source>
        <translation>网络为空</translation>
    </message>
    <message>
        <source>Add layers to see how much memory training it takes.</source>
        <translation>添加层后即可看到训练所需的显存。</translation>
    </message>
    <message>
        <source>no saving</source>
        <translation>没有节省</translation>
    </message>
    <message>
        <source>From the reserved peak: the largest batch whose first two steps PyTorch&apos;s caching allocator can hold in %1 (the GPU&apos;s memory less the overhead), keeping %2 spare; %3 at exactly %1.</source>
        <translation>根据预留峰值：PyTorch 缓存分配器能在 %1（GPU 显存减去开销）内容纳前两步训练的最大批量，并留出 %2 余量；恰好 %1 时为 %3。</translation>
    </message>
    <message>
        <source>Above the max batch: PyTorch&apos;s allocator would reserve %1</source>
        <translation>超过最大批量：PyTorch 分配器将预留 %1</translation>
    </message>
    <message>
        <source>Above the max batch of PyTorch&apos;s reserved memory</source>
        <translation>超过 PyTorch 预留显存所允许的最大批量</translation>
    </message>
    <message>
        <source>the batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>whole numbers from %1 up</source>
        <translation>不小于 %1 的整数</translation>
    </message>
    <message>
        <source>Tensors per GPU: %1 of %2</source>
        <translation>每个 GPU 的张量：%1 / %2</translation>
    </message>
    <message>
        <source>Tensors: %1 of %2</source>
        <translation>张量：%1 / %2</translation>
    </message>
    <message>
        <source>Reserved by PyTorch&apos;s caching allocator: %1, plus %2 outside it</source>
        <translation>PyTorch 缓存分配器保留：%1，另有分配器之外的 %2</translation>
    </message>
    <message>
        <source>Allocated at its peak: %1 (tensors %2, cuBLAS and cuDNN workspaces %3)</source>
        <translation>峰值时已分配：%1（张量 %2，cuBLAS 和 cuDNN 工作区 %3）</translation>
    </message>
    <message>
        <source>The GPU&apos;s %1 less what it holds at the peak, %2: what PyTorch&apos;s caching allocator reserves plus the overhead</source>
        <translation>GPU 的 %1 减去峰值时的占用 %2：PyTorch 缓存分配器保留的内存加开销</translation>
    </message>
    <message>
        <source>The GPU&apos;s %1 less the tensors&apos; peak, %2: PyTorch&apos;s caching allocator is not simulated</source>
        <translation>GPU 的 %1 减去张量峰值 %2：未模拟 PyTorch 缓存分配器</translation>
    </message>
    <message>
        <source> (at %1 of %2 TFLOPS%3)</source>
        <translation> （按 %2 TFLOPS 的 %1%3）</translation>
    </message>
    <message>
        <source>−%1</source>
        <translation>−%1</translation>
    </message>
    <message>
        <source>+%1: checkpointing these layers costs memory</source>
        <translation>+%1：对这些层做检查点反而多占显存</translation>
    </message>
    <message>
        <source>Checkpointing: activations %1 instead of %2 per sample (%3), recomputing %4 per sample (+%5 forward compute)</source>
        <translation>激活检查点：每样本激活值 %1（原为 %2，%3），每样本重计算 %4（前向计算 +%5）</translation>
    </message>
    <message>
        <source>Trainable: %1 of %2 parameters (%3)</source>
        <translation>可训练：%2 个参数中的 %1 个（%3）</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ClusterLayoutModel</name>
    <message>
        <source>Held at the peak: %1 (the tensors: %2) of %3</source>
        <translation>峰值时占用：%1（张量：%2），共 %3</translation>
    </message>
    <message>
        <source>One optimizer step: %1</source>
        <translation>一次优化器步骤：%1</translation>
    </message>
    <message>
        <source>Fastest first</source>
        <translation>按速度从快到慢</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Tensor parallel GPUs (with sequence parallelism), within one node</source>
        <translation>张量并行 GPU 数（含序列并行），在一个节点内</translation>
    </message>
    <message>
        <source>TP</source>
        <translation>TP</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>流水线阶段</translation>
    </message>
    <message>
        <source>PP</source>
        <translation>PP</translation>
    </message>
    <message>
        <source>The pipeline&apos;s schedule (× the model chunks of each stage)</source>
        <translation>流水线调度（× 每个阶段的模型块数）</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>调度</translation>
    </message>
    <message>
        <source>Context parallel GPUs: each holds a part of the sequence</source>
        <translation>上下文并行 GPU 数：每个持有序列的一部分</translation>
    </message>
    <message>
        <source>CP</source>
        <translation>CP</translation>
    </message>
    <message>
        <source>Expert parallel GPUs: each holds a part of the experts</source>
        <translation>专家并行 GPU 数：每个持有一部分专家</translation>
    </message>
    <message>
        <source>EP</source>
        <translation>EP</translation>
    </message>
    <message>
        <source>Data-parallel replicas: the GPUs ÷ (TP × PP × CP)</source>
        <translation>数据并行副本数：GPU 数 ÷ (TP × PP × CP)</translation>
    </message>
    <message>
        <source>DP</source>
        <translation>DP</translation>
    </message>
    <message>
        <source>Samples per micro-batch on each data-parallel replica</source>
        <translation>每个数据并行副本上每个微批次的样本数</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step (the accumulation steps)</source>
        <translation>每个优化器步骤的微批次数（累积步数）</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <source>Activation recomputation (checkpointing)</source>
        <translation>激活重计算（检查点）</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <source>Sharding over the data-parallel replicas (DDP: none)</source>
        <translation>在数据并行副本间分片（DDP：不分片）</translation>
    </message>
    <message>
        <source>ZeRO</source>
        <translation>ZeRO</translation>
    </message>
    <message>
        <source>What the heaviest GPU holds at its peak: what PyTorch&apos;s caching allocator reserves, plus the overhead</source>
        <translation>最重 GPU 在峰值时占用的内存：PyTorch 缓存分配器预留的内存加上开销</translation>
    </message>
    <message>
        <source>Memory (heaviest GPU)</source>
        <translation>内存（最重 GPU）</translation>
    </message>
    <message>
        <source>The pipeline stage on that GPU (its layers in the cell&apos;s tooltip)</source>
        <translation>该 GPU 上的流水线阶段（其层见单元格提示）</translation>
    </message>
    <message>
        <source>Heaviest stage</source>
        <translation>最重阶段</translation>
    </message>
    <message>
        <source>Samples per second of the whole cluster, by the throughput model (no communication timed)</source>
        <translation>整个集群每秒样本数，按吞吐量模型（未计通信时间）</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>The pipeline bubble&apos;s share of the step: (PP − 1) ÷ (chunks × accumulation)</source>
        <translation>流水线气泡占一步的比例：(PP − 1) ÷ (模型块数 × 累积步数)</translation>
    </message>
    <message>
        <source>Bubble</source>
        <translation>气泡</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ClusterPlanView</name>
    <message>
        <source>TP %1 × PP %2</source>
        <translation>TP %1 × PP %2</translation>
    </message>
    <message>
        <source> × CP %1</source>
        <translation> × CP %1</translation>
    </message>
    <message>
        <source> × EP %1</source>
        <translation> × EP %1</translation>
    </message>
    <message>
        <source> × DP %1</source>
        <translation> × DP %1</translation>
    </message>
    <message>
        <source>%1, micro-batch %2 × %3</source>
        <translation>%1，微批次 %2 × %3</translation>
    </message>
    <message>
        <source>GP&amp;Us:</source>
        <translation>GPU 数(&amp;U)：</translation>
    </message>
    <message>
        <source>GPUs per &amp;node:</source>
        <translation>每节点 GPU 数(&amp;N)：</translation>
    </message>
    <message>
        <source>&amp;Global batch:</source>
        <translation>全局批次(&amp;G)：</translation>
    </message>
    <message>
        <source>&amp;Apply Layout</source>
        <translation>应用布局(&amp;A)</translation>
    </message>
    <message>
        <source>Set this layout in the plan (Edit &gt; Undo takes it back)</source>
        <translation>在计划中设置此布局（编辑 &gt; 撤销可还原）</translation>
    </message>
    <message>
        <source>Every GPU of the cluster, of the set-up&apos;s kind</source>
        <translation>集群中的全部 GPU，型号与设置中相同</translation>
    </message>
    <message>
        <source>Samples per optimizer step over all GPUs: micro-batch × accumulation steps × data parallel</source>
        <translation>所有 GPU 上每个优化器步骤的样本数：微批次 × 累积步数 × 数据并行</translation>
    </message>
    <message>
        <source>Find La&amp;youts</source>
        <translation>查找布局(&amp;Y)</translation>
    </message>
    <message>
        <source>Search the layouts of these GPUs that fit, fastest first (takes a few seconds for a large model; the rest of the window stays usable)</source>
        <translation>搜索这些 GPU 上可容纳的布局，从快到慢（大模型需要几秒钟；窗口其余部分仍可使用）</translation>
    </message>
    <message>
        <source>Left out: %1.</source>
        <translation>未包含：%1。</translation>
    </message>
    <message>
        <source>Searching the layouts…</source>
        <translation>正在搜索布局…</translation>
    </message>
    <message>
        <source>Find Layouts searches tensor × pipeline × data × context × expert parallelism, the micro-batch, recomputation and ZeRO stage for these GPUs and this global batch.</source>
        <translation>“查找布局”会为这些 GPU 和此全局批次搜索张量 × 流水线 × 数据 × 上下文 × 专家并行、微批次、重计算和 ZeRO 阶段。</translation>
    </message>
    <message>
        <source>The set-up or the request changed since these layouts were found: Find Layouts to search again.</source>
        <translation>找到这些布局后设置或请求已更改：请点击“查找布局”重新搜索。</translation>
    </message>
    <message>
        <source>Cannot plan the cluster: %1</source>
        <translation>无法规划集群：%1</translation>
    </message>
    <message>
        <source>Nothing fits: %1.</source>
        <translation>没有可容纳的布局：%1。</translation>
    </message>
    <message>
        <source>1 layout fits</source>
        <translation>1 个布局可容纳</translation>
    </message>
    <message>
        <source>%1 layouts fit</source>
        <translation>%1 个布局可容纳</translation>
    </message>
    <message>
        <source>%1, fastest first (%2). Double-click one or Apply Layout to set it.</source>
        <translation>%1，从快到慢（%2）。双击一行或点击“应用布局”进行设置。</translation>
    </message>
    <message>
        <source>Apply layout: %1</source>
        <translation>应用布局：%1</translation>
    </message>
    <message>
        <source>the network is empty: add layers to find the layouts that fit</source>
        <translation>网络为空：请先添加层，再查找可容纳的布局</translation>
    </message>
    <message>
        <source>GPUs per node, as in the set-up (Multi-GPU tab): tensor and expert parallelism stay within one node (NVLink), as Megatron-LM places them</source>
        <translation>每节点 GPU 数，与设置中相同（“多 GPU”标签页）：张量并行和专家并行限于一个节点内（NVLink），与 Megatron-LM 的放置方式相同</translation>
    </message>
</context>
<context>
    <name>headroom::ui::CoreText</name>
    <message>
        <source>2-D average pooling over [C, H, W]</source>
        <translation>对 [C, H, W] 做二维平均池化</translation>
    </message>
    <message>
        <source>Batch normalisation over [C] or [C, L]</source>
        <translation>对 [C] 或 [C, L] 做批归一化</translation>
    </message>
    <message>
        <source>Batch normalisation over [C, H, W]</source>
        <translation>对 [C, H, W] 做批归一化</translation>
    </message>
    <message>
        <source>Concatenates inputs along an axis (torch.cat)</source>
        <translation>沿某一轴拼接输入（torch.cat）</translation>
    </message>
    <message>
        <source>1-D convolution over [C, L]</source>
        <translation>对 [C, L] 做一维卷积</translation>
    </message>
    <message>
        <source>2-D convolution over [C, H, W]</source>
        <translation>对 [C, H, W] 做二维卷积</translation>
    </message>
    <message>
        <source>2-D transposed convolution over [C, H, W]</source>
        <translation>对 [C, H, W] 做二维转置卷积</translation>
    </message>
    <message>
        <source>Zeroes elements with probability p while training</source>
        <translation>训练时以概率 p 将元素置零</translation>
    </message>
    <message>
        <source>Drops a residual branch for whole samples with probability p while training</source>
        <translation>训练时以概率 p 对整个样本丢弃残差分支</translation>
    </message>
    <message>
        <source>Lookup table of learned vectors for integer ids</source>
        <translation>按整数 id 查找学习到的向量的查找表</translation>
    </message>
    <message>
        <source>Flattens a range of axes into one (a view)</source>
        <translation>把一段连续的轴展平为一个轴（视图）</translation>
    </message>
    <message>
        <source>Gaussian error linear unit</source>
        <translation>高斯误差线性单元</translation>
    </message>
    <message>
        <source>Gated recurrent unit over a sequence [T, features]</source>
        <translation>对序列 [T, features] 的门控循环单元</translation>
    </message>
    <message>
        <source>Group normalisation over [C, *]</source>
        <translation>对 [C, *] 做组归一化</translation>
    </message>
    <message>
        <source>Passes its input through unchanged</source>
        <translation>原样传递输入</translation>
    </message>
    <message>
        <source>Long short-term memory over a sequence [T, features]</source>
        <translation>对序列 [T, features] 的长短期记忆网络</translation>
    </message>
    <message>
        <source>Layer normalisation over the trailing axes</source>
        <translation>对末尾若干轴做层归一化</translation>
    </message>
    <message>
        <source>x if x &gt; 0 else negative_slope * x</source>
        <translation>x &gt; 0 时为 x，否则为 negative_slope * x</translation>
    </message>
    <message>
        <source>Fully connected layer on the last axis</source>
        <translation>作用于最后一个轴的全连接层</translation>
    </message>
    <message>
        <source>2-D max pooling over [C, H, W]</source>
        <translation>对 [C, H, W] 做二维最大池化</translation>
    </message>
    <message>
        <source>Multi-head self-attention over a sequence [T, E]</source>
        <translation>对序列 [T, E] 的多头自注意力</translation>
    </message>
    <message>
        <source>GELU, tanh approximation written out in tensor ops (Hugging Face&apos;s gelu_new, GPT-2)</source>
        <translation>以张量运算写出的 GELU tanh 近似（Hugging Face 的 gelu_new，GPT-2）</translation>
    </message>
    <message>
        <source>Learned position vectors added to a sequence [T, D]</source>
        <translation>加到序列 [T, D] 上的可学习位置向量</translation>
    </message>
    <message>
        <source>Root-mean-square normalisation over the last axis (Llama&apos;s RMSNorm, computed in float32)</source>
        <translation>对最后一个轴做均方根归一化（Llama 的 RMSNorm，以 float32 计算）</translation>
    </message>
    <message>
        <source>max(0, x)</source>
        <translation>max(0, x)</translation>
    </message>
    <message>
        <source>min(max(0, x), 6)</source>
        <translation>min(max(0, x), 6)</translation>
    </message>
    <message>
        <source>Multi-head attention on projected q, k, v (grouped-query, optional rotary embedding)</source>
        <translation>作用于投影后的 q、k、v 的多头注意力（分组查询，可选旋转位置编码）</translation>
    </message>
    <message>
        <source>x * sigmoid(x) (swish)</source>
        <translation>x * sigmoid(x)（swish）</translation>
    </message>
    <message>
        <source>1 / (1 + exp(-x))</source>
        <translation>1 / (1 + exp(-x))</translation>
    </message>
    <message>
        <source>Softmax along one axis</source>
        <translation>沿某一轴做 softmax</translation>
    </message>
    <message>
        <source>tanh(x)</source>
        <translation>tanh(x)</translation>
    </message>
    <message>
        <source>Learned segment vectors added to a sequence [T, D] (BERT&apos;s token type embeddings, segment 0)</source>
        <translation>加到序列 [T, D] 上的可学习分段向量（BERT 的 token 类型嵌入，分段 0）</translation>
    </message>
    <message>
        <source>Self-attention and feed-forward block with residuals and LayerNorms</source>
        <translation>带残差和 LayerNorm 的自注意力与前馈块</translation>
    </message>
    <message>
        <source>Window size</source>
        <translation>窗口大小</translation>
    </message>
    <message>
        <source>Stride (kernel_size if left out)</source>
        <translation>步幅（省略时为 kernel_size）</translation>
    </message>
    <message>
        <source>Implicit zero padding</source>
        <translation>隐式零填充</translation>
    </message>
    <message>
        <source>Rounds the output size up</source>
        <translation>输出尺寸向上取整</translation>
    </message>
    <message>
        <source>Averages over padding too</source>
        <translation>平均时也计入填充</translation>
    </message>
    <message>
        <source>Divisor instead of the window size</source>
        <translation>代替窗口大小的除数</translation>
    </message>
    <message>
        <source>Channels (inferred from the input if left out)</source>
        <translation>通道数（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Added to the variance</source>
        <translation>加到方差上</translation>
    </message>
    <message>
        <source>Running-statistics momentum</source>
        <translation>滑动统计量的动量</translation>
    </message>
    <message>
        <source>Keeps running mean and variance buffers</source>
        <translation>保留滑动均值和方差缓冲区</translation>
    </message>
    <message>
        <source>Axis, counting the batch axis as 0 (1 = channels)</source>
        <translation>轴，批次轴计为 0（1 = 通道）</translation>
    </message>
    <message>
        <source>Input channels (inferred from the input if left out)</source>
        <translation>输入通道数（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Output channels</source>
        <translation>输出通道数</translation>
    </message>
    <message>
        <source>Kernel size</source>
        <translation>卷积核大小</translation>
    </message>
    <message>
        <source>Stride</source>
        <translation>步幅</translation>
    </message>
    <message>
        <source>Spacing between kernel elements</source>
        <translation>卷积核元素之间的间距</translation>
    </message>
    <message>
        <source>Blocked connections from input to output channels</source>
        <translation>输入通道到输出通道的分组连接</translation>
    </message>
    <message>
        <source>Adds a learnable bias</source>
        <translation>添加可学习的偏置</translation>
    </message>
    <message>
        <source>Implicit zero padding removed from each side</source>
        <translation>从每侧去掉的隐式零填充</translation>
    </message>
    <message>
        <source>Extra size added to one side of the output</source>
        <translation>加到输出一侧的额外尺寸</translation>
    </message>
    <message>
        <source>Probability of zeroing an element</source>
        <translation>元素被置零的概率</translation>
    </message>
    <message>
        <source>Overwrites the input</source>
        <translation>覆盖输入</translation>
    </message>
    <message>
        <source>Probability of dropping a sample&apos;s branch</source>
        <translation>丢弃一个样本分支的概率</translation>
    </message>
    <message>
        <source>row: each sample on its own; batch: the whole batch at once</source>
        <translation>row：每个样本各自决定；batch：整个批次一起决定</translation>
    </message>
    <message>
        <source>Vocabulary size (rows of the table)</source>
        <translation>词表大小（表的行数）</translation>
    </message>
    <message>
        <source>Vector size</source>
        <translation>向量维度</translation>
    </message>
    <message>
        <source>Id whose vector stays zero and gets no gradient</source>
        <translation>向量保持为零且不接收梯度的 id</translation>
    </message>
    <message>
        <source>First axis to flatten, counting the batch axis as 0</source>
        <translation>要展平的第一个轴，批次轴计为 0</translation>
    </message>
    <message>
        <source>Last axis to flatten (negative counts from the end)</source>
        <translation>要展平的最后一个轴（负数表示从末尾倒数）</translation>
    </message>
    <message>
        <source>Exact erf form or the tanh approximation</source>
        <translation>精确的 erf 形式或 tanh 近似</translation>
    </message>
    <message>
        <source>Input features (inferred from the input if left out)</source>
        <translation>输入特征数（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Features of the hidden state</source>
        <translation>隐藏状态的特征数</translation>
    </message>
    <message>
        <source>Stacked recurrent layers</source>
        <translation>堆叠的循环层数</translation>
    </message>
    <message>
        <source>Biases b_ih and b_hh</source>
        <translation>偏置 b_ih 和 b_hh</translation>
    </message>
    <message>
        <source>Batch axis first: the output is a transposed view, which a following Linear or Flatten copies</source>
        <translation>批次轴在前：输出是转置视图，后面的 Linear 或 Flatten 会复制它</translation>
    </message>
    <message>
        <source>Dropout between stacked layers</source>
        <translation>堆叠层之间的 dropout</translation>
    </message>
    <message>
        <source>Also runs the sequence backwards (doubles the output features)</source>
        <translation>同时反向处理序列（输出特征数翻倍）</translation>
    </message>
    <message>
        <source>Groups the channels are split into</source>
        <translation>通道分成的组数</translation>
    </message>
    <message>
        <source>Learnable per-channel scale and shift</source>
        <translation>按通道可学习的缩放和平移</translation>
    </message>
    <message>
        <source>Projection size of the hidden state (only 0 is supported)</source>
        <translation>隐藏状态的投影大小（仅支持 0）</translation>
    </message>
    <message>
        <source>Trailing axes to normalise (the last axis if left out)</source>
        <translation>要归一化的末尾各轴（省略时为最后一个轴）</translation>
    </message>
    <message>
        <source>Learnable per-element scale (and shift)</source>
        <translation>按元素可学习的缩放（和平移）</translation>
    </message>
    <message>
        <source>Learnable shift (with elementwise_affine)</source>
        <translation>可学习的平移（与 elementwise_affine 一起）</translation>
    </message>
    <message>
        <source>Slope for negative inputs</source>
        <translation>负输入的斜率</translation>
    </message>
    <message>
        <source>Overwrites the input instead of allocating an output</source>
        <translation>覆盖输入，不另分配输出</translation>
    </message>
    <message>
        <source>Output features</source>
        <translation>输出特征数</translation>
    </message>
    <message>
        <source>Implicit negative-infinity padding</source>
        <translation>隐式负无穷填充</translation>
    </message>
    <message>
        <source>Spacing between window elements</source>
        <translation>窗口元素之间的间距</translation>
    </message>
    <message>
        <source>Also returns the indices (they are kept anyway)</source>
        <translation>同时返回索引（索引无论如何都会保存）</translation>
    </message>
    <message>
        <source>Embedding size E (inferred from the input if left out)</source>
        <translation>嵌入维度 E（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Attention heads (must divide embed_dim)</source>
        <translation>注意力头数（须整除 embed_dim）</translation>
    </message>
    <message>
        <source>Dropout on the attention probabilities</source>
        <translation>作用于注意力概率的 dropout</translation>
    </message>
    <message>
        <source>Biases on the input and output projections</source>
        <translation>输入和输出投影的偏置</translation>
    </message>
    <message>
        <source>Learned bias rows appended to keys and values</source>
        <translation>附加到键和值上的可学习偏置行</translation>
    </message>
    <message>
        <source>A zero row appended to keys and values</source>
        <translation>附加到键和值上的全零行</translation>
    </message>
    <message>
        <source>Key size (must equal embed_dim: self-attention) (inferred from the input if left out)</source>
        <translation>键的维度（须等于 embed_dim：自注意力）（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Value size (must equal embed_dim: self-attention) (inferred from the input if left out)</source>
        <translation>值的维度（须等于 embed_dim：自注意力）（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Batch axis first (no memory effect)</source>
        <translation>批次轴在前（不影响显存）</translation>
    </message>
    <message>
        <source>Return the attention weights: the explicit path that keeps heads x T x T probabilities; false uses fused scaled-dot-product attention</source>
        <translation>返回注意力权重：走显式计算路径，保留 heads × T × T 的概率；为 false 时使用融合的缩放点积注意力</translation>
    </message>
    <message>
        <source>Causal mask hint (no memory effect)</source>
        <translation>因果掩码提示（不影响显存）</translation>
    </message>
    <message>
        <source>Average the returned weights over heads (no memory effect)</source>
        <translation>对返回的权重按头取平均（不影响显存）</translation>
    </message>
    <message>
        <source>Maximum sequence length (rows of the table)</source>
        <translation>最大序列长度（表的行数）</translation>
    </message>
    <message>
        <source>Vector size D (inferred from the input if left out)</source>
        <translation>向量维度 D（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Normalised size (the input&apos;s last axis) (inferred from the input if left out)</source>
        <translation>归一化的大小（输入的最后一个轴）（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Added to the mean square</source>
        <translation>加到均方值上</translation>
    </message>
    <message>
        <source>Learnable per-element scale</source>
        <translation>按元素可学习的缩放</translation>
    </message>
    <message>
        <source>Query heads h</source>
        <translation>查询头数 h</translation>
    </message>
    <message>
        <source>Key/value heads g (grouped-query attention; must divide num_heads; default num_heads)</source>
        <translation>键/值头数 g（分组查询注意力；须整除 num_heads；默认为 num_heads）</translation>
    </message>
    <message>
        <source>Rotary position embedding applied to q and k (Llama)</source>
        <translation>对 q 和 k 应用旋转位置编码（Llama）</translation>
    </message>
    <message>
        <source>Eager softmax in float32 then cast back (Llama&apos;s softmax(dtype=float32)); false: in the scores&apos; dtype (GPT-2, BERT)</source>
        <translation>显式 softmax 先以 float32 计算再转回（Llama 的 softmax(dtype=float32)）；为 false 时按分数的数据类型计算（GPT-2、BERT）</translation>
    </message>
    <message>
        <source>Causal mask (no memory effect)</source>
        <translation>因果掩码（不影响显存）</translation>
    </message>
    <message>
        <source>Axis, counting the batch axis as 0 (negative counts from the end)</source>
        <translation>轴，批次轴计为 0（负数表示从末尾倒数）</translation>
    </message>
    <message>
        <source>Segment types (rows of the table, type_vocab_size)</source>
        <translation>分段类型数（表的行数，type_vocab_size）</translation>
    </message>
    <message>
        <source>Model width (the input&apos;s last axis) (inferred from the input if left out)</source>
        <translation>模型宽度（输入的最后一个轴）（省略时根据输入推断）</translation>
    </message>
    <message>
        <source>Attention heads (must divide d_model)</source>
        <translation>注意力头数（须整除 d_model）</translation>
    </message>
    <message>
        <source>Feed-forward width</source>
        <translation>前馈层宽度</translation>
    </message>
    <message>
        <source>Dropout probability (attention, residual branches, feed-forward)</source>
        <translation>dropout 概率（注意力、残差分支、前馈层）</translation>
    </message>
    <message>
        <source>Feed-forward activation</source>
        <translation>前馈层激活函数</translation>
    </message>
    <message>
        <source>LayerNorm epsilon</source>
        <translation>LayerNorm 的 epsilon</translation>
    </message>
    <message>
        <source>LayerNorm before attention and feed-forward (pre-norm)</source>
        <translation>在注意力和前馈层之前做 LayerNorm（前置归一化）</translation>
    </message>
    <message>
        <source>Biases in the linear layers and LayerNorms</source>
        <translation>线性层和 LayerNorm 中的偏置</translation>
    </message>
    <message>
        <source>kernel_size</source>
        <translation>kernel_size</translation>
    </message>
    <message>
        <source>the window size</source>
        <translation>窗口大小</translation>
    </message>
    <message>
        <source>from the input</source>
        <translation>根据输入推断</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>the last axis</source>
        <translation>最后一个轴</translation>
    </message>
    <message>
        <source>num_heads</source>
        <translation>num_heads</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>Input batch</source>
        <translation>输入批次</translation>
    </message>
    <message>
        <source>Transient</source>
        <translation>临时张量</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation>通信缓冲区</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>框架开销</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>SGD（动量）</translation>
    </message>
    <message>
        <source>SGD with Nesterov momentum</source>
        <translation>SGD（Nesterov 动量）</translation>
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
        <translation>Adam（AMSGrad）</translation>
    </message>
    <message>
        <source>RMSprop</source>
        <translation>RMSprop</translation>
    </message>
    <message>
        <source>RMSprop with momentum</source>
        <translation>RMSprop（动量）</translation>
    </message>
    <message>
        <source>RMSprop (centered, momentum)</source>
        <translation>RMSprop（中心化，动量）</translation>
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
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>Mixed precision (FP16 autocast)</source>
        <translation>混合精度（FP16 autocast）</translation>
    </message>
    <message>
        <source>Mixed precision (BF16 autocast)</source>
        <translation>混合精度（BF16 autocast）</translation>
    </message>
    <message>
        <source>Pure FP16 (FP32 master weights)</source>
        <translation>纯 FP16（FP32 主权重）</translation>
    </message>
    <message>
        <source>Pure BF16 (FP32 master weights)</source>
        <translation>纯 BF16（FP32 主权重）</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Per block</source>
        <translation>按块</translation>
    </message>
    <message>
        <source>Selective (attention scores)</source>
        <translation>选择性（注意力分数）</translation>
    </message>
    <message>
        <source>Flash / SDPA</source>
        <translation>Flash / SDPA</translation>
    </message>
    <message>
        <source>Eager (keeps T x T scores)</source>
        <translation>Eager（保留 T × T 分数）</translation>
    </message>
    <message>
        <source>DDP (no sharding)</source>
        <translation>DDP（不分片）</translation>
    </message>
    <message>
        <source>ZeRO stage 1</source>
        <translation>ZeRO 第 1 阶段</translation>
    </message>
    <message>
        <source>ZeRO stage 2</source>
        <translation>ZeRO 第 2 阶段</translation>
    </message>
    <message>
        <source>ZeRO stage 3</source>
        <translation>ZeRO 第 3 阶段</translation>
    </message>
    <message>
        <source>FSDP shard grad/op</source>
        <translation>FSDP 分片梯度与优化器状态</translation>
    </message>
    <message>
        <source>FSDP full shard</source>
        <translation>FSDP 完全分片</translation>
    </message>
    <message>
        <source>%1 runs fp16 at %2 of its fp32 rate; mixed precision will be slower than fp32 on this card</source>
        <translation>%1 的 fp16 速度只有 fp32 的 %2；在这块显卡上，混合精度会比 fp32 更慢</translation>
    </message>
    <message>
        <source>Assumes %1 of the %2 peak (model FLOPs utilisation); large transformer training typically reaches 30-50%, small CNNs less</source>
        <translation>假定达到 %2 峰值的 %1（模型 FLOPs 利用率）；大型 Transformer 训练通常可达 30-50%，小型 CNN 更低</translation>
    </message>
    <message>
        <source>Memory-bound: moving the step&apos;s weights, gradients, optimizer state and activations at %1 GB/s takes longer than its arithmetic</source>
        <translation>受限于显存带宽：以 %1 GB/s 搬运该步的权重、梯度、优化器状态和激活值，比其计算耗时更长</translation>
    </message>
    <message>
        <source>%1 has no memory bandwidth figure: the memory-bound check is skipped</source>
        <translation>%1 没有显存带宽数据：跳过显存带宽限制检查</translation>
    </message>
    <message>
        <source>fp32 uses the plain FP32 peak; PyTorch lets cuDNN use TF32 for convolutions by default on this card, so convolution-heavy fp32 training may run faster</source>
        <translation>fp32 按普通 FP32 峰值计算；在这块显卡上 PyTorch 默认允许 cuDNN 用 TF32 计算卷积，因此以卷积为主的 fp32 训练可能更快</translation>
    </message>
    <message>
        <source>%1 has no GPU-to-GPU bandwidth figure: assumes PCIe %2 x16, %3 GB/s each way</source>
        <translation>%1 没有 GPU 之间带宽的数据：假定为 PCIe %2 x16，每个方向 %3 GB/s</translation>
    </message>
    <message>
        <source>Communication between GPUs: %1 a step, %2 of it not hidden by compute, at %3 GB/s between the GPUs of a node and %4 GB/s per GPU between nodes (peak bandwidth: no congestion or protocol overhead)</source>
        <translation>GPU 之间的通信：每步 %1，其中 %2 未被计算掩盖，节点内 GPU 之间按 %3 GB/s、节点之间每块 GPU 按 %4 GB/s 计（峰值带宽：不计拥塞和协议开销）</translation>
    </message>
    <message>
        <source>Communication between GPUs: %1 a step, %2 of it not hidden by compute, at %3 GB/s between GPUs (peak bandwidth: no congestion or protocol overhead)</source>
        <translation>GPU 之间的通信：每步 %1，其中 %2 未被计算掩盖，GPU 之间按 %3 GB/s 计（峰值带宽：不计拥塞和协议开销）</translation>
    </message>
    <message>
        <source>The network does no arithmetic and moves no memory: no throughput to estimate</source>
        <translation>该网络既不做运算也不搬运显存：没有吞吐量可估算</translation>
    </message>
    <message>
        <source>A router and gated expert MLPs, each token through its top-k experts (Mixtral, Qwen-MoE, DeepSeek-V3)</source>
        <translation>路由器与门控专家 MLP，每个 token 经过其 top-k 个专家（Mixtral、Qwen-MoE、DeepSeek-V3）</translation>
    </message>
    <message>
        <source>DeepSeek-V3&apos;s attention with low-rank query and key/value projections, projections included</source>
        <translation>DeepSeek-V3 的注意力，查询与键/值投影为低秩，含投影</translation>
    </message>
    <message>
        <source>Applied to the first half (the gate)</source>
        <translation>作用于前一半（门控）</translation>
    </message>
    <message>
        <source>Biases on q_a_proj, kv_a_proj_with_mqa and o_proj</source>
        <translation>q_a_proj、kv_a_proj_with_mqa 和 o_proj 上的偏置</translation>
    </message>
    <message>
        <source>Each expert&apos;s MLP width F</source>
        <translation>每个专家的 MLP 宽度 F</translation>
    </message>
    <message>
        <source>Experts each token is routed to (top-k)</source>
        <translation>每个 token 路由到的专家数（top-k）</translation>
    </message>
    <message>
        <source>Gemma 2&apos;s attn_logit_softcapping: scores become cap x tanh(scores / cap) before the softmax (eager attention keeps the tanh); 0 = none</source>
        <translation>Gemma 2 的 attn_logit_softcapping：softmax 之前分数变为 cap x tanh(scores / cap)（eager 注意力会保留 tanh）；0 = 无</translation>
    </message>
    <message>
        <source>Heads h</source>
        <translation>头数 h</translation>
    </message>
    <message>
        <source>Mixtral&apos;s router_jitter_noise: multiplies the input by uniform noise in training</source>
        <translation>Mixtral 的 router_jitter_noise：训练时把输入乘以均匀噪声</translation>
    </message>
    <message>
        <source>Multiplies the looked-up vectors (Gemma: sqrt(embedding_dim)); 1 = none</source>
        <translation>乘以查得的向量（Gemma：sqrt(embedding_dim)）；1 = 无</translation>
    </message>
    <message>
        <source>Normalise each group of this many features on its own (per-head q/k norms: head_dim); the weight has this size</source>
        <translation>对每组这么多个特征单独归一化（按头的 q/k 归一化：head_dim）；权重为此大小</translation>
    </message>
    <message>
        <source>Query/key head size with rotary embedding (shared by the heads for keys)</source>
        <translation>带旋转位置编码的查询/键头大小（键由各头共享）</translation>
    </message>
    <message>
        <source>Query/key head size without rotary embedding</source>
        <translation>不带旋转位置编码的查询/键头大小</translation>
    </message>
    <message>
        <source>Rank of the compressed keys and values (kv_a_proj_with_mqa)</source>
        <translation>压缩后的键和值的秩（kv_a_proj_with_mqa）</translation>
    </message>
    <message>
        <source>Foreach (PyTorch default)</source>
        <translation>Foreach（PyTorch 默认）</translation>
    </message>
    <message>
        <source>Fused</source>
        <translation>Fused（融合）</translation>
    </message>
    <message>
        <source>For-loop</source>
        <translation>For 循环</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>优化器步</translation>
    </message>
    <message>
        <source>act(first half) x second half of a packed gate/up projection (Phi-3&apos;s gate_up_proj)</source>
        <translation>act(前一半) x 后一半，作用于打包的 gate/up 投影（Phi-3 的 gate_up_proj）</translation>
    </message>
    <message>
        <source>cap x tanh(x / cap): soft-caps logits to (-cap, cap) (Gemma 2&apos;s final_logit_softcapping)</source>
        <translation>cap x tanh(x / cap)：把 logits 软截断到 (-cap, cap)（Gemma 2 的 final_logit_softcapping）</translation>
    </message>
    <message>
        <source>Rank of the query projection (q_a_proj, q_b_proj); 0: one q_proj</source>
        <translation>查询投影的秩（q_a_proj、q_b_proj）；0：单个 q_proj</translation>
    </message>
    <message>
        <source>Renormalise the top-k routing weights to sum to 1</source>
        <translation>把 top-k 路由权重重新归一化为和为 1</translation>
    </message>
    <message>
        <source>Routed experts E (each a gated MLP)</source>
        <translation>路由专家数 E（每个都是门控 MLP）</translation>
    </message>
    <message>
        <source>Scale by 1 + weight in float32 and return the input&apos;s dtype (Gemma&apos;s RMSNorm)</source>
        <translation>以 float32 乘以 1 + weight，并返回输入的数据类型（Gemma 的 RMSNorm）</translation>
    </message>
    <message>
        <source>The RMSNorms&apos; epsilon</source>
        <translation>RMSNorm 的 epsilon</translation>
    </message>
    <message>
        <source>The bound the values approach</source>
        <translation>数值趋近的界限</translation>
    </message>
    <message>
        <source>The experts&apos; activation (on the gate projection)</source>
        <translation>专家的激活函数（作用于门控投影）</translation>
    </message>
    <message>
        <source>The experts&apos; projection names (LoRA targets): Qwen and DeepSeek&apos;s, or Mixtral&apos;s</source>
        <translation>专家投影的名称（LoRA 目标）：Qwen 与 DeepSeek 的，或 Mixtral 的</translation>
    </message>
    <message>
        <source>Value head size</source>
        <translation>值头大小</translation>
    </message>
    <message>
        <source>softmax: softmax over all experts, then top-k (Mixtral, Qwen-MoE); sigmoid: float32 sigmoid scores, bias-corrected group-limited top-k (DeepSeek-V3)</source>
        <translation>softmax：先对所有专家做 softmax，再取 top-k（Mixtral、Qwen-MoE）；sigmoid：float32 sigmoid 分数，经偏置校正、按组限制的 top-k（DeepSeek-V3）</translation>
    </message>
    <message>
        <source>eager: a loop over the experts with index_add_ (transformers 4.5x, or experts_implementation=&quot;eager&quot;); grouped_mm: one grouped product over all assignments in the weights&apos; dtype (transformers 5&apos;s default on CUDA)</source>
        <translation>eager：逐个专家循环并用 index_add_ 累加（transformers 4.5x，或 experts_implementation=&quot;eager&quot;）；grouped_mm：在权重的数据类型下对所有分配做一次分组矩阵乘（transformers 5 在 CUDA 上的默认方式）</translation>
    </message>
    <message>
        <source>the whole last axis</source>
        <translation>整个最后一个轴</translation>
    </message>
    <message>
        <source>1-D transposed convolution over [C, L]</source>
        <translation>对 [C, L] 做一维转置卷积</translation>
    </message>
    <message>
        <source>3-D convolution over [C, D, H, W]</source>
        <translation>对 [C, D, H, W] 做三维卷积</translation>
    </message>
    <message>
        <source>3-D transposed convolution over [C, D, H, W]</source>
        <translation>对 [C, D, H, W] 做三维转置卷积</translation>
    </message>
    <message>
        <source>1-D average pooling over [C, L]</source>
        <translation>对 [C, L] 做一维平均池化</translation>
    </message>
    <message>
        <source>1-D max pooling over [C, L]</source>
        <translation>对 [C, L] 做一维最大池化</translation>
    </message>
    <message>
        <source>3-D average pooling over [C, D, H, W]</source>
        <translation>对 [C, D, H, W] 做三维平均池化</translation>
    </message>
    <message>
        <source>3-D max pooling over [C, D, H, W]</source>
        <translation>对 [C, D, H, W] 做三维最大池化</translation>
    </message>
    <message>
        <source>Average pooling of [C, D, H, W] to a fixed output size</source>
        <translation>把 [C, D, H, W] 自适应平均池化到固定输出尺寸</translation>
    </message>
    <message>
        <source>Average pooling of [C, H, W] to a fixed output size</source>
        <translation>把 [C, H, W] 自适应平均池化到固定输出尺寸</translation>
    </message>
    <message>
        <source>Average pooling of [C, L] to a fixed output size</source>
        <translation>把 [C, L] 自适应平均池化到固定输出尺寸</translation>
    </message>
    <message>
        <source>Max pooling of [C, D, H, W] to a fixed output size</source>
        <translation>把 [C, D, H, W] 自适应最大池化到固定输出尺寸</translation>
    </message>
    <message>
        <source>Max pooling of [C, H, W] to a fixed output size</source>
        <translation>把 [C, H, W] 自适应最大池化到固定输出尺寸</translation>
    </message>
    <message>
        <source>Max pooling of [C, L] to a fixed output size</source>
        <translation>把 [C, L] 自适应最大池化到固定输出尺寸</translation>
    </message>
    <message>
        <source>Batch normalisation over [C, D, H, W]</source>
        <translation>对 [C, D, H, W] 做批归一化</translation>
    </message>
    <message>
        <source>Instance normalisation (per sample and channel) over [C, D, H, W]</source>
        <translation>对 [C, D, H, W] 做实例归一化（按样本和通道）</translation>
    </message>
    <message>
        <source>Instance normalisation (per sample and channel) over [C, H, W]</source>
        <translation>对 [C, H, W] 做实例归一化（按样本和通道）</translation>
    </message>
    <message>
        <source>Instance normalisation (per sample and channel) over [C, L]</source>
        <translation>对 [C, L] 做实例归一化（按样本和通道）</translation>
    </message>
    <message>
        <source>Circular padding of the last 2 axes</source>
        <translation>对最后 2 个轴做循环填充</translation>
    </message>
    <message>
        <source>Circular padding of the last 3 axes</source>
        <translation>对最后 3 个轴做循环填充</translation>
    </message>
    <message>
        <source>Circular padding of the last axis</source>
        <translation>对最后一个轴做循环填充</translation>
    </message>
    <message>
        <source>Constant padding of the last 2 axes</source>
        <translation>对最后 2 个轴做常数填充</translation>
    </message>
    <message>
        <source>Constant padding of the last 3 axes</source>
        <translation>对最后 3 个轴做常数填充</translation>
    </message>
    <message>
        <source>Constant padding of the last axis</source>
        <translation>对最后一个轴做常数填充</translation>
    </message>
    <message>
        <source>Pads the last axes (F.pad)</source>
        <translation>填充最后若干个轴（F.pad）</translation>
    </message>
    <message>
        <source>Reflection padding of the last 2 axes</source>
        <translation>对最后 2 个轴做反射填充</translation>
    </message>
    <message>
        <source>Reflection padding of the last 3 axes</source>
        <translation>对最后 3 个轴做反射填充</translation>
    </message>
    <message>
        <source>Reflection padding of the last axis</source>
        <translation>对最后一个轴做反射填充</translation>
    </message>
    <message>
        <source>Replication padding of the last 2 axes</source>
        <translation>对最后 2 个轴做复制填充</translation>
    </message>
    <message>
        <source>Replication padding of the last 3 axes</source>
        <translation>对最后 3 个轴做复制填充</translation>
    </message>
    <message>
        <source>Replication padding of the last axis</source>
        <translation>对最后一个轴做复制填充</translation>
    </message>
    <message>
        <source>Zero padding of the last 2 axes</source>
        <translation>对最后 2 个轴做零填充</translation>
    </message>
    <message>
        <source>Zero padding of the last 3 axes</source>
        <translation>对最后 3 个轴做零填充</translation>
    </message>
    <message>
        <source>Zero padding of the last axis</source>
        <translation>对最后一个轴做零填充</translation>
    </message>
    <message>
        <source>Elementwise difference of two operands</source>
        <translation>两个操作数逐元素相减</translation>
    </message>
    <message>
        <source>Elementwise product of two operands (gates, layer scale)</source>
        <translation>两个操作数逐元素相乘（门控、层缩放）</translation>
    </message>
    <message>
        <source>Elementwise quotient of two operands</source>
        <translation>两个操作数逐元素相除</translation>
    </message>
    <message>
        <source>Elementwise sum of two or more operands (residual)</source>
        <translation>两个或多个操作数逐元素相加（残差）</translation>
    </message>
    <message>
        <source>Matrix product of two inputs over their last two axes (torch.matmul, bmm)</source>
        <translation>两个输入在最后两个轴上的矩阵乘积（torch.matmul、bmm）</translation>
    </message>
    <message>
        <source>Maximum over axes (torch.amax)</source>
        <translation>沿若干轴取最大值（torch.amax）</translation>
    </message>
    <message>
        <source>Euclidean (2-)norm over axes (torch.linalg.vector_norm, Tensor.norm)</source>
        <translation>沿若干轴的欧几里得（2-）范数（torch.linalg.vector_norm、Tensor.norm）</translation>
    </message>
    <message>
        <source>Trained values behind `parameter` when it is computed from a smaller stored tensor (Swin&apos;s relative-position bias, gathered from its table); 0 for a constant computed from sizes (a shifted-window attention mask)</source>
        <translation>当 `parameter` 由更小的存储张量计算得到时，其背后参与训练的数值个数（Swin 的相对位置偏置，从其表中 gather 得到）；由尺寸计算出的常量为 0（移位窗口注意力掩码）</translation>
    </message>
    <message>
        <source>the parameter&apos;s own size</source>
        <translation>参数本身的大小</translation>
    </message>
    <message>
        <source>Mean over axes (torch.mean)</source>
        <translation>沿若干轴取平均值（torch.mean）</translation>
    </message>
    <message>
        <source>Sum over axes (torch.sum)</source>
        <translation>沿若干轴求和（torch.sum）</translation>
    </message>
    <message>
        <source>A contiguous copy of a permuted or sliced view (Tensor.contiguous)</source>
        <translation>重排或切片视图的连续副本（Tensor.contiguous）</translation>
    </message>
    <message>
        <source>A new shape: a view when the layout allows, else a copy (Tensor.reshape)</source>
        <translation>改为新形状：内存布局允许时为视图，否则为副本（Tensor.reshape）</translation>
    </message>
    <message>
        <source>A view with a new shape (Tensor.view)</source>
        <translation>具有新形状的视图（Tensor.view）</translation>
    </message>
    <message>
        <source>Broadcasts axes of size 1 to a larger size (a view)</source>
        <translation>把大小为 1 的轴广播到更大的大小（视图）</translation>
    </message>
    <message>
        <source>Inserts an axis of size 1 (a view)</source>
        <translation>插入一个大小为 1 的轴（视图）</translation>
    </message>
    <message>
        <source>One index of an axis, which is removed (x[:, 0]; a view)</source>
        <translation>取某一轴上的一个索引，该轴被去掉（x[:, 0]；视图）</translation>
    </message>
    <message>
        <source>Removes axes of size 1 (a view)</source>
        <translation>去掉大小为 1 的轴（视图）</translation>
    </message>
    <message>
        <source>Reorders the axes (a view)</source>
        <translation>重新排列各轴的顺序（视图）</translation>
    </message>
    <message>
        <source>Splits one axis into several (a view)</source>
        <translation>把一个轴拆成多个轴（视图）</translation>
    </message>
    <message>
        <source>Swaps two axes (a view)</source>
        <translation>交换两个轴（视图）</translation>
    </message>
    <message>
        <source>length elements of one axis from start (a view)</source>
        <translation>某一轴上从 start 起的 length 个元素（视图）</translation>
    </message>
    <message>
        <source>x[..., start:end:step] along one axis (a view)</source>
        <translation>沿某一轴的 x[..., start:end:step]（视图）</translation>
    </message>
    <message>
        <source>Resizes the spatial axes (nn.Upsample, F.interpolate)</source>
        <translation>调整空间轴的大小（nn.Upsample、F.interpolate）</translation>
    </message>
    <message>
        <source>Resizes the spatial axes, bilinear (2-D)</source>
        <translation>调整空间轴的大小，双线性插值（二维）</translation>
    </message>
    <message>
        <source>Resizes the spatial axes, nearest (2-D)</source>
        <translation>调整空间轴的大小，最近邻插值（二维）</translation>
    </message>
    <message>
        <source>[C r^2, H, W] to [C, H r, W r] (sub-pixel convolution)</source>
        <translation>[C r^2, H, W] 变为 [C, H r, W r]（亚像素卷积）</translation>
    </message>
    <message>
        <source>[C, H r, W r] to [C r^2, H, W]</source>
        <translation>[C, H r, W r] 变为 [C r^2, H, W]</translation>
    </message>
    <message>
        <source>-x</source>
        <translation>-x</translation>
    </message>
    <message>
        <source>Square root</source>
        <translation>平方根</translation>
    </message>
    <message>
        <source>e ** x</source>
        <translation>e ** x</translation>
    </message>
    <message>
        <source>log(1 + exp(beta x)) / beta</source>
        <translation>log(1 + exp(beta x)) / beta</translation>
    </message>
    <message>
        <source>log(sigmoid(x))</source>
        <translation>log(sigmoid(x))</translation>
    </message>
    <message>
        <source>max(0, x) + min(0, alpha (exp(x / alpha) - 1))</source>
        <translation>max(0, x) + min(0, alpha (exp(x / alpha) - 1))</translation>
    </message>
    <message>
        <source>min(max(x, min), max) (torch.clamp)</source>
        <translation>min(max(x, min), max)（torch.clamp）</translation>
    </message>
    <message>
        <source>min(max(x, min_val), max_val)</source>
        <translation>min(max(x, min_val), max_val)</translation>
    </message>
    <message>
        <source>relu6(x + 3) / 6</source>
        <translation>relu6(x + 3) / 6</translation>
    </message>
    <message>
        <source>scale x if x &gt; 0 else scale alpha (exp(x) - 1), fixed constants</source>
        <translation>x &gt; 0 时为 scale x，否则为 scale alpha (exp(x) - 1)，常数固定</translation>
    </message>
    <message>
        <source>x * relu6(x + 3) / 6 (MobileNetV3)</source>
        <translation>x * relu6(x + 3) / 6（MobileNetV3）</translation>
    </message>
    <message>
        <source>x * tanh(softplus(x))</source>
        <translation>x * tanh(softplus(x))</translation>
    </message>
    <message>
        <source>x ** exponent</source>
        <translation>x ** exponent</translation>
    </message>
    <message>
        <source>x if x &gt; 0 else alpha (exp(x) - 1)</source>
        <translation>x &gt; 0 时为 x，否则为 alpha (exp(x) - 1)</translation>
    </message>
    <message>
        <source>x if x &gt; 0 else weight * x (a learned slope)</source>
        <translation>x &gt; 0 时为 x，否则为 weight * x（可学习的斜率）</translation>
    </message>
    <message>
        <source>|x|</source>
        <translation>|x|</translation>
    </message>
    <message>
        <source>A constant used as the last operand (x / 8)</source>
        <translation>用作最后一个操作数的常数（x / 8）</translation>
    </message>
    <message>
        <source>Above beta x &gt; threshold the function is linear</source>
        <translation>beta x &gt; threshold 时函数为线性</translation>
    </message>
    <message>
        <source>Aligns the corner pixels (interpolating modes)</source>
        <translation>对齐角点像素（插值模式）</translation>
    </message>
    <message>
        <source>Axes to reduce, counting the batch axis as 0 (negative counts from the end)</source>
        <translation>要归约的轴，批次轴计为 0（负数表示从末尾倒数）</translation>
    </message>
    <message>
        <source>Axis (counting the batch axis as 0)</source>
        <translation>轴（批次轴计为 0）</translation>
    </message>
    <message>
        <source>Axis to remove (counting the batch axis as 0)</source>
        <translation>要去掉的轴（批次轴计为 0）</translation>
    </message>
    <message>
        <source>Axis to split (counting the batch axis as 0)</source>
        <translation>要拆分的轴（批次轴计为 0）</translation>
    </message>
    <message>
        <source>Before and after each padded axis, last axis first: [left, right, top, bottom]</source>
        <translation>每个被填充轴前后的填充量，从最后一个轴开始：[left, right, top, bottom]</translation>
    </message>
    <message>
        <source>End index, excluded (negative counts from the end)</source>
        <translation>结束索引，不含该位置（负数表示从末尾倒数）</translation>
    </message>
    <message>
        <source>Fill value</source>
        <translation>填充值</translation>
    </message>
    <message>
        <source>Fill value (constant mode)</source>
        <translation>填充值（constant 模式）</translation>
    </message>
    <message>
        <source>First axis (counting the batch axis as 0)</source>
        <translation>第一个轴（批次轴计为 0）</translation>
    </message>
    <message>
        <source>First index (negative counts from the end)</source>
        <translation>起始索引（负数表示从末尾倒数）</translation>
    </message>
    <message>
        <source>How the padding is filled</source>
        <translation>填充方式</translation>
    </message>
    <message>
        <source>How the padding is filled (other than zeros: a padded copy is made first)</source>
        <translation>填充方式（zeros 以外的模式会先生成一个填充后的副本）</translation>
    </message>
    <message>
        <source>Index (negative counts from the end)</source>
        <translation>索引（负数表示从末尾倒数）</translation>
    </message>
    <message>
        <source>Initial slope</source>
        <translation>初始斜率</translation>
    </message>
    <message>
        <source>Interpolation</source>
        <translation>插值方式</translation>
    </message>
    <message>
        <source>Keeps the reduced axes with size 1</source>
        <translation>以大小 1 保留被归约的轴</translation>
    </message>
    <message>
        <source>Learnable scale and shift per channel</source>
        <translation>按通道可学习的缩放和平移</translation>
    </message>
    <message>
        <source>Learned slopes: 1, or one per channel</source>
        <translation>可学习斜率的个数：1，或每个通道一个</translation>
    </message>
    <message>
        <source>Lower bound</source>
        <translation>下界</translation>
    </message>
    <message>
        <source>Multiplier of every spatial axis (the output is floor(input x scale_factor))</source>
        <translation>每个空间轴的倍数（输出为 floor(input x scale_factor)）</translation>
    </message>
    <message>
        <source>Number of elements</source>
        <translation>元素个数</translation>
    </message>
    <message>
        <source>Only zeros: PyTorch&apos;s transposed convolutions support no other</source>
        <translation>只能为 zeros：PyTorch 的转置卷积不支持其他模式</translation>
    </message>
    <message>
        <source>Output size</source>
        <translation>输出尺寸</translation>
    </message>
    <message>
        <source>Output size of the spatial axes (one size for all, or one per axis)</source>
        <translation>空间轴的输出尺寸（所有轴一个值，或每轴一个）</translation>
    </message>
    <message>
        <source>Padding on each side</source>
        <translation>每侧的填充</translation>
    </message>
    <message>
        <source>Padding on every side, or [left, right, top, bottom, front, back]</source>
        <translation>各侧相同的填充，或 [left, right, top, bottom, front, back]</translation>
    </message>
    <message>
        <source>Padding on every side, or [left, right, top, bottom]</source>
        <translation>各侧相同的填充，或 [left, right, top, bottom]</translation>
    </message>
    <message>
        <source>Padding on every side, or [left, right]</source>
        <translation>各侧相同的填充，或 [left, right]</translation>
    </message>
    <message>
        <source>Position of the new axis (counting the batch axis as 0)</source>
        <translation>新轴的位置（批次轴计为 0）</translation>
    </message>
    <message>
        <source>Recomputes the scale from the output size (sizes are the same)</source>
        <translation>根据输出尺寸重新计算缩放比例（尺寸不变）</translation>
    </message>
    <message>
        <source>Scale of the negative side (not 0)</source>
        <translation>负侧的缩放系数（不能为 0）</translation>
    </message>
    <message>
        <source>Second axis (counting the batch axis as 0)</source>
        <translation>第二个轴（批次轴计为 0）</translation>
    </message>
    <message>
        <source>Shape of a learned tensor put before the inputs, per sample (no batch axis): [1, 768] for a class token</source>
        <translation>放在输入之前的可学习张量的形状，按单个样本（不含批次轴）：类别 token 为 [1, 768]</translation>
    </message>
    <message>
        <source>Shape of a learned tensor used as the next operand, per sample (no batch axis): [384] for a layer scale, [197, 384] for a position table, [C, 1, 1] per channel</source>
        <translation>用作下一个操作数的可学习张量的形状，按单个样本（不含批次轴）：层缩放为 [384]，位置表为 [197, 384]，按通道为 [C, 1, 1]</translation>
    </message>
    <message>
        <source>Sharpness</source>
        <translation>锐度</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步长</translation>
    </message>
    <message>
        <source>The factor r</source>
        <translation>倍数 r</translation>
    </message>
    <message>
        <source>The new order of the axes, counting the batch axis as 0: [0, 2, 3, 1] for channels last, [1, 0, 2] for sequence-first</source>
        <translation>各轴的新顺序，批次轴计为 0：通道在后（channels last）为 [0, 2, 3, 1]，序列在前（sequence-first）为 [1, 0, 2]</translation>
    </message>
    <message>
        <source>The new shape of one sample (no batch axis); -1 keeps an axis</source>
        <translation>单个样本的新形状（不含批次轴）；-1 表示保持该轴不变</translation>
    </message>
    <message>
        <source>The new shape of one sample (no batch axis); one -1 is inferred</source>
        <translation>单个样本的新形状（不含批次轴）；可有一个 -1，由推断得出</translation>
    </message>
    <message>
        <source>Where the batch axis goes among the result&apos;s axes; the values of each sample before it must be as many as before the input&apos;s</source>
        <translation>批次轴在结果各轴中的位置；其前面每个样本的值的个数必须与输入中批次轴前面的相同</translation>
    </message>
    <message>
        <source>The power (a number)</source>
        <translation>幂指数（一个数）</translation>
    </message>
    <message>
        <source>The sizes it splits into; one -1 is inferred</source>
        <translation>拆分成的各个大小；可有一个 -1，由推断得出</translation>
    </message>
    <message>
        <source>Upper bound</source>
        <translation>上界</translation>
    </message>
    <message>
        <source>Value the negative side approaches</source>
        <translation>负侧趋近的值</translation>
    </message>
    <message>
        <source>every axis of size 1</source>
        <translation>所有大小为 1 的轴</translation>
    </message>
    <message>
        <source>where the input has it</source>
        <translation>与输入中的位置相同</translation>
    </message>
    <message>
        <source>false</source>
        <translation>false</translation>
    </message>
    <message>
        <source>from scale_factor</source>
        <translation>由 scale_factor 决定</translation>
    </message>
    <message>
        <source>from size</source>
        <translation>由 size 决定</translation>
    </message>
    <message>
        <source>the end of the axis</source>
        <translation>轴的末尾</translation>
    </message>
    <message>
        <source>An operator Headroom does not model: keeps its inputs, makes one new tensor</source>
        <translation>Headroom 未建模的算子：保留其输入，生成一个新张量</translation>
    </message>
    <message>
        <source>&quot;float&quot;: the type of its floating-point inputs (or the parameter type), following the precision; otherwise a fixed element type</source>
        <translation>&quot;float&quot;：其浮点输入的类型（或参数类型），随精度而定；否则为固定的元素类型</translation>
    </message>
    <message>
        <source>Keeps every input for backward (the assumption)</source>
        <translation>为反向传播保留所有输入（假设）</translation>
    </message>
    <message>
        <source>The operator&apos;s name, shown in the warning</source>
        <translation>算子名称，显示在警告中</translation>
    </message>
    <message>
        <source>The output&apos;s shape per sample (without the batch axis)</source>
        <translation>每个样本的输出形状（不含批次轴）</translation>
    </message>
    <message>
        <source>Trainable parameter elements the operator holds</source>
        <translation>该算子持有的可训练参数元素数</translation>
    </message>
    <message>
        <source>Why no exact layer models it</source>
        <translation>为何没有精确的层可以表示它</translation>
    </message>
    <message>
        <source>torchvision&apos;s AlexNet (torchvision.models.alexnet, the &quot;one weird trick&quot; single-GPU variant of Krizhevsky et al. 2012) for 224x224 ImageNet images: 61,100,840 parameters.</source>
        <translation>torchvision 的 AlexNet（torchvision.models.alexnet，Krizhevsky 等人 2012 年网络的“one weird trick”单 GPU 变体），用于 224x224 的 ImageNet 图像：61,100,840 个参数。</translation>
    </message>
    <message>
        <source>A BERT-base-style encoder (Devlin et al. 2018; 12 post-norm blocks, d=768, 12 heads, 512 tokens) built from PyTorch TransformerEncoderLayers, ending in a token-level output layer tied to the word embedding, 108,920,634 parameters: unlike Hugging Face&apos;s BertForMaskedLM (109,514,298) it has no token-type embeddings and no MLM transform (dense + GELU + LayerNorm) before the decoder, and like it no pooler.</source>
        <translation>BERT-base 式编码器（Devlin 等人 2018；12 个后归一化块，d=768，12 个注意力头，512 个 token），由 PyTorch TransformerEncoderLayer 构成，最后是与词嵌入共享权重的逐 token 输出层，共 108,920,634 个参数：与 Hugging Face 的 BertForMaskedLM（109,514,298）不同，它没有 token 类型嵌入，解码器前也没有 MLM 变换（dense + GELU + LayerNorm）；与之相同，它没有 pooler。</translation>
    </message>
    <message>
        <source>A small VGG-style CNN reading 5-character captchas (62 classes per character: digits and both cases) from 180x50 greyscale images, modelled on the network of a well-known Q&amp;A on mini-batch memory (532,752 activations, 19,072,984 parameters, batch 128) whose layers were not published: this natural design has 19,079,462 parameters (0.03% more), its 5 x 62 character outputs forming one 310-way layer.</source>
        <translation>一个小型 VGG 式 CNN，从 180x50 的灰度图像中识别 5 个字符的验证码（每个字符 62 类：数字及大小写字母），仿照一篇关于小批量内存的知名问答中的网络（532,752 个激活值、19,072,984 个参数、批大小 128），该网络的层结构未公开：这一自然的设计有 19,079,462 个参数（多 0.03%），5 x 62 个字符输出合为一个 310 路输出层。</translation>
    </message>
    <message>
        <source>A GPT-2-small-style decoder (Radford et al. 2019; 12 pre-norm causal blocks, d=768, 12 heads, 1024-token context) built from PyTorch TransformerEncoderLayers with the LM head tied to the token embedding: 124,439,808 parameters, as Hugging Face&apos;s gpt2, with exact GELU in place of GPT-2&apos;s tanh approximation.</source>
        <translation>GPT-2 small 式解码器（Radford 等人 2019；12 个前归一化因果块，d=768，12 个注意力头，1024 个 token 的上下文），由 PyTorch TransformerEncoderLayer 构成，语言模型头与 token 嵌入共享权重：共 124,439,808 个参数，与 Hugging Face 的 gpt2 相同，用精确 GELU 代替 GPT-2 的 tanh 近似。</translation>
    </message>
    <message>
        <source>LeCun et al.&apos;s 1998 LeNet-5 for 32x32 digit images (MNIST padded), in the common modern form with ReLU and max pooling instead of tanh and subsampling: 61,706 parameters.</source>
        <translation>LeCun 等人 1998 年的 LeNet-5，用于 32x32 的数字图像（填充后的 MNIST），采用常见的现代形式，以 ReLU 和最大池化代替 tanh 和下采样：61,706 个参数。</translation>
    </message>
    <message>
        <source>torchvision&apos;s MobileNetV2 (torchvision.models.mobilenet_v2, Sandler et al. 2018, width 1.0) for 224x224 ImageNet images: inverted residual blocks with depthwise 3x3 convs and ReLU6, 3,504,872 parameters.</source>
        <translation>torchvision 的 MobileNetV2（torchvision.models.mobilenet_v2，Sandler 等人 2018，宽度 1.0），用于 224x224 的 ImageNet 图像：由深度 3x3 卷积和 ReLU6 组成的倒残差块，3,504,872 个参数。</translation>
    </message>
    <message>
        <source>torchvision&apos;s ResNet-18 (torchvision.models.resnet18, He et al. 2015, BasicBlocks [2, 2, 2, 2]) for 224x224 ImageNet images, 11,689,512 parameters; each stage&apos;s first, downsampling block is written out as layerN.0 and its remaining blocks repeat as layerN.rest (torchvision&apos;s layerN.1 onwards).</source>
        <translation>torchvision 的 ResNet-18（torchvision.models.resnet18，He 等人 2015，BasicBlock [2, 2, 2, 2]），用于 224x224 的 ImageNet 图像，11,689,512 个参数；每个阶段第一个下采样块单独写作 layerN.0，其余的块以 layerN.rest 重复（即 torchvision 的 layerN.1 及之后）。</translation>
    </message>
    <message>
        <source>torchvision&apos;s ResNet-50 (torchvision.models.resnet50, He et al. 2015, v1.5 Bottlenecks [3, 4, 6, 3] with the stride on the 3x3 conv) for 224x224 ImageNet images, 25,557,032 parameters; each stage&apos;s first, downsampling block is written out as layerN.0 and its remaining blocks repeat as layerN.rest (torchvision&apos;s layerN.1 onwards).</source>
        <translation>torchvision 的 ResNet-50（torchvision.models.resnet50，He 等人 2015，v1.5 Bottleneck [3, 4, 6, 3]，步幅在 3x3 卷积上），用于 224x224 的 ImageNet 图像，25,557,032 个参数；每个阶段第一个下采样块单独写作 layerN.0，其余的块以 layerN.rest 重复（即 torchvision 的 layerN.1 及之后）。</translation>
    </message>
    <message>
        <source>torchvision&apos;s VGG-16 without batch norm (torchvision.models.vgg16, configuration D of Simonyan &amp; Zisserman 2014) for 224x224 ImageNet images: 138,357,544 parameters.</source>
        <translation>torchvision 的 VGG-16，不含批归一化（torchvision.models.vgg16，Simonyan 与 Zisserman 2014 的配置 D），用于 224x224 的 ImageNet 图像：138,357,544 个参数。</translation>
    </message>
    <message>
        <source>Calibration (measured excess)</source>
        <translation>校准（实测超出部分）</translation>
    </message>
    <message>
        <source>GPipe</source>
        <translation>GPipe</translation>
    </message>
    <message>
        <source>1F1B</source>
        <translation>1F1B</translation>
    </message>
    <message>
        <source>Interleaved 1F1B</source>
        <translation>交错 1F1B</translation>
    </message>
    <message>
        <source>Zero bubble (ZB-H1)</source>
        <translation>零气泡（ZB-H1）</translation>
    </message>
    <message>
        <source>Ring attention</source>
        <translation>环形注意力</translation>
    </message>
    <message>
        <source>All-to-all (Ulysses)</source>
        <translation>All-to-all（Ulysses）</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>All saved activations</source>
        <translation>所有保存的激活</translation>
    </message>
    <message>
        <source>memory snapshot (pickle)</source>
        <translation>内存快照（pickle）</translation>
    </message>
    <message>
        <source>memory snapshot (JSON)</source>
        <translation>内存快照（JSON）</translation>
    </message>
    <message>
        <source>memory snapshot (memory_viz page)</source>
        <translation>内存快照（memory_viz 页面）</translation>
    </message>
    <message>
        <source>profiler memory timeline</source>
        <translation>性能分析器内存时间线</translation>
    </message>
    <message>
        <source>profiler Chrome trace</source>
        <translation>性能分析器 Chrome 跟踪</translation>
    </message>
    <message>
        <source>Activations (+input)</source>
        <translation>激活值（含输入）</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>临时张量</translation>
    </message>
    <message>
        <source>Unattributed</source>
        <translation>未归属</translation>
    </message>
    <message>
        <source>the frames did not show the steps: found by the allocation pattern</source>
        <translation>调用栈未显示训练步：按分配模式找到</translation>
    </message>
    <message>
        <source>a memory timeline counts the tensors the profiler saw (no block rounding, no cached memory): reserved bytes are not known</source>
        <translation>内存时间线只统计性能分析器看到的张量（不含块的取整和缓存的内存）：保留字节数未知</translation>
    </message>
    <message>
        <source>the trace has memory events for the CPU only: profile a CUDA run with activities=[ProfilerActivity.CUDA] and profile_memory=True</source>
        <translation>该跟踪只有 CPU 的内存事件：请用 activities=[ProfilerActivity.CUDA] 和 profile_memory=True 对 CUDA 运行做性能分析</translation>
    </message>
    <message>
        <source>no trace for any device: only the state at the snapshot&apos;s moment is known (record with torch.cuda.memory._record_memory_history() before the steps)</source>
        <translation>没有任何设备的跟踪：只知道快照时刻的状态（请在训练步之前用 torch.cuda.memory._record_memory_history() 记录）</translation>
    </message>
    <message>
        <source>no segments: the allocator&apos;s state at the snapshot is unknown</source>
        <translation>没有段：快照时刻分配器的状态未知</translation>
    </message>
    <message>
        <source>no device_traces: the memory history was not recorded</source>
        <translation>没有 device_traces：未记录内存历史</translation>
    </message>
    <message>
        <source>no allocator_settings (files before PyTorch 2.4 lack them): the allocator&apos;s defaults are assumed</source>
        <translation>没有 allocator_settings（PyTorch 2.4 之前的文件没有）：假定分配器使用默认设置</translation>
    </message>
    <message>
        <source>trace entries without time_us (PyTorch before 2.1): times are the entries&apos; order</source>
        <translation>跟踪条目没有 time_us（PyTorch 2.1 之前）：以条目的顺序代替时间</translation>
    </message>
    <message>
        <source>With gradient accumulation the plan&apos;s micro-batches share the forward and backward intervals of the chart.</source>
        <translation>使用梯度累积时，计划的各微批次共用图表中的前向和反向区间。</translation>
    </message>
    <message>
        <source>The run shows only its first step: the steady step is compared with it.</source>
        <translation>该运行只有第一个训练步：用它与稳定步比较。</translation>
    </message>
    <message>
        <source>The run&apos;s steady step lacks a phase: the phases found are compared.</source>
        <translation>该运行的稳定步缺少某个阶段：只比较找到的阶段。</translation>
    </message>
    <message>
        <source>The plan has no allocation trace: the run&apos;s blocks are not attributed.</source>
        <translation>计划没有分配轨迹：运行的内存块未被归属。</translation>
    </message>
    <message>
        <source>The run&apos;s components are the profiler&apos;s categories at its peak.</source>
        <translation>运行的各组成部分取自性能分析器在其峰值处的类别。</translation>
    </message>
    <message>
        <source>The run&apos;s file shows no blocks: its memory is not split by component.</source>
        <translation>运行的文件中没有内存块：其内存不按组成部分拆分。</translation>
    </message>
    <message>
        <source>No calibration is proposed: the run&apos;s bytes are not absolute.</source>
        <translation>不建议校准：该运行的字节数不是绝对值。</translation>
    </message>
    <message>
        <source>No calibration is proposed: the run shows no steady training step to read it from.</source>
        <translation>不建议校准：该运行没有可供读取的稳定训练步。</translation>
    </message>
    <message>
        <source>a raw memory timeline (one event per tensor): its events were added up per category, as export_memory_timeline does</source>
        <translation>原始内存时间线（每个张量一个事件）：已按类别累加其事件，与 export_memory_timeline 的做法相同</translation>
    </message>
</context>
<context>
    <name>headroom::ui::CustomGpuDialog</name>
    <message>
        <source>Custom GPU</source>
        <translation>自定义 GPU</translation>
    </message>
    <message>
        <source>My GPU</source>
        <translation>我的 GPU</translation>
    </message>
    <message>
        <source>The memory plan needs only the memory. The figures below, from the vendor&apos;s specifications, give the step time and samples per second; leave a figure you do not have at “Not known”.</source>
        <translation>显存规划只需要显存大小。下面的数据取自厂商规格，用于估算步骤时间和每秒样本数；没有的数据请保持为“未知”。</translation>
    </message>
    <message>
        <source>The name in the GPU list; a GPU of the same name is replaced</source>
        <translation>GPU 列表中显示的名称；同名的 GPU 会被替换</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>The GPU&apos;s memory as the vendor states it: 24 GB of GDDR6X is 24 GiB</source>
        <translation>厂商标称的 GPU 显存：24 GB GDDR6X 即 24 GiB</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>显存：</translation>
    </message>
    <message>
        <source>Not known</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Step time (optional)</source>
        <translation>步骤时间（可选）</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source>Memory bandwidth in GB/s (RTX 4090: 1,008): a layer that moves more bytes than it computes takes as long as its bytes need. Not known: that check is skipped</source>
        <translation>显存带宽，单位 GB/s（RTX 4090：1,008）：搬运字节多于计算量的层，耗时按搬运这些字节所需的时间计。未知：跳过这项检查</translation>
    </message>
    <message>
        <source> TFLOPS</source>
        <translation> TFLOPS</translation>
    </message>
    <message>
        <source>Peak dense FP32 TFLOPS (RTX 4090: 82.58): the step time in fp32. Not known: no step time in fp32</source>
        <translation>FP32 稠密峰值 TFLOPS（RTX 4090：82.58）：用于 fp32 的步骤时间。未知：fp32 下不估算步骤时间</translation>
    </message>
    <message>
        <source>Peak dense FP16 TFLOPS, on tensor cores where the GPU has them (RTX 4090: 165.2): the step time in fp16 and mixed fp16. Not known: no step time in fp16</source>
        <translation>FP16 稠密峰值 TFLOPS，GPU 有张量核心时按张量核心计（RTX 4090：165.2）：用于 fp16 和 fp16 混合精度的步骤时间。未知：fp16 下不估算步骤时间</translation>
    </message>
    <message>
        <source>Peak dense BF16 TFLOPS (RTX 4090: 165.2): the step time in bf16 and mixed bf16. Not known, or a GPU without bfloat16: no step time in bf16</source>
        <translation>BF16 稠密峰值 TFLOPS（RTX 4090：165.2）：用于 bf16 和 bf16 混合精度的步骤时间。未知或 GPU 不支持 bfloat16：bf16 下不估算步骤时间</translation>
    </message>
    <message>
        <source>Memory bandwidth:</source>
        <translation>显存带宽：</translation>
    </message>
    <message>
        <source>FP32:</source>
        <translation>FP32：</translation>
    </message>
    <message>
        <source>FP16:</source>
        <translation>FP16：</translation>
    </message>
    <message>
        <source>BF16:</source>
        <translation>BF16：</translation>
    </message>
    <message>
        <source>Several GPUs (optional)</source>
        <translation>多 GPU（可选）</translation>
    </message>
    <message>
        <source>Not known (the PCIe rate)</source>
        <translation>未知（按 PCIe 速率）</translation>
    </message>
    <message>
        <source>GPU-to-GPU bandwidth within a node, GB/s each way: NVLink&apos;s per-GPU figure (H100 SXM: 900 GB/s both ways, so 450), else the PCIe x16 rate. Not known: the PCIe generation&apos;s x16 rate. Changes the step time with several GPUs, not memory</source>
        <translation>节点内 GPU 之间的带宽，每个方向的 GB/s：NVLink 的每 GPU 数值（H100 SXM：双向 900 GB/s，即 450），否则为 PCIe x16 速率。未知：按 PCIe 代数的 x16 速率。影响多 GPU 时的步骤时间，不影响显存</translation>
    </message>
    <message>
        <source>Not known (4.0 assumed)</source>
        <translation>未知（假定为 4.0）</translation>
    </message>
    <message>
        <source>%1.0 (x16: %2 GB/s each way)</source>
        <translation>%1.0（x16：每个方向 %2 GB/s）</translation>
    </message>
    <message>
        <source>The PCIe generation of the GPU&apos;s host link: its x16 rate is the link between GPUs when that is not known. Not known: PCIe 4.0</source>
        <translation>GPU 与主机连接的 PCIe 代数：GPU 之间的带宽未知时，按其 x16 速率计。未知：PCIe 4.0</translation>
    </message>
    <message>
        <source>GPU-to-GPU link:</source>
        <translation>GPU 间连接：</translation>
    </message>
    <message>
        <source>PCIe generation:</source>
        <translation>PCIe 代数：</translation>
    </message>
</context>
<context>
    <name>headroom::ui::DialogProvider</name>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>“%1” has unsaved changes. Save them first?</source>
        <translation>“%1”有未保存的更改。要先保存吗？</translation>
    </message>
    <message>
        <source>Sequence Length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>%1 takes sequences of up to %2 tokens. Training usually runs at fewer: Hugging Face&apos;s run_clm.py and TRL&apos;s SFTTrainer use %3 unless told otherwise, and memory grows with the length.</source>
        <translation>%1 可接受最长 %2 个 token 的序列。训练通常使用更短的长度：Hugging Face 的 run_clm.py 和 TRL 的 SFTTrainer 在未另行指定时使用 %3，且显存随长度增长。</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个词元</translation>
    </message>
    <message>
        <source>Train at:</source>
        <translation>训练长度：</translation>
    </message>
    <message>
        <source>Measured Run</source>
        <translation>测量的运行</translation>
    </message>
    <message>
        <source>%1 does not record the batch size or the precision it was trained at. Say which, so the plan is compared at the same set-up; if you do not know, the plan&apos;s are assumed and the comparison says so.</source>
        <translation>%1 没有记录训练时的批大小和精度。请指明，以便在相同设置下比较计划；如果不知道，就假定与计划相同，比较结果会注明这一点。</translation>
    </message>
    <message>
        <source>Micro-batch of the run:</source>
        <translation>运行的微批大小：</translation>
    </message>
    <message>
        <source>Precision of the run:</source>
        <translation>运行的精度：</translation>
    </message>
    <message>
        <source>Not Known: Assume the Plan&apos;s</source>
        <translation>不知道：假定与计划相同</translation>
    </message>
</context>
<context>
    <name>headroom::ui::Document</name>
    <message>
        <source>Untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <source>Remove layer</source>
        <translation>删除层</translation>
    </message>
    <message numerus="yes">
        <source>Remove %n layers</source>
        <translation>
            <numerusform>删除 %n 个层</numerusform>
        </translation>
    </message>
    <message>
        <source>Move layer</source>
        <translation>移动层</translation>
    </message>
    <message numerus="yes">
        <source>Move %n layers</source>
        <translation>
            <numerusform>移动 %n 个层</numerusform>
        </translation>
    </message>
    <message>
        <source>Duplicate layer</source>
        <translation>复制层</translation>
    </message>
    <message numerus="yes">
        <source>Duplicate %n layers</source>
        <translation>
            <numerusform>复制 %n 个层</numerusform>
        </translation>
    </message>
    <message>
        <source>Wrap in residual block</source>
        <translation>包装为残差块</translation>
    </message>
    <message>
        <source>Change %1</source>
        <translation>修改 %1</translation>
    </message>
    <message>
        <source>Rename layer</source>
        <translation>重命名层</translation>
    </message>
    <message>
        <source>Change inputs</source>
        <translation>修改输入</translation>
    </message>
    <message>
        <source>Change repeat count</source>
        <translation>修改重复次数</translation>
    </message>
    <message>
        <source>Rename network</source>
        <translation>重命名网络</translation>
    </message>
    <message>
        <source>Change input</source>
        <translation>修改网络输入</translation>
    </message>
    <message>
        <source>Change loss</source>
        <translation>修改损失函数</translation>
    </message>
    <message>
        <source>Change precision</source>
        <translation>修改精度</translation>
    </message>
    <message>
        <source>Change batch size</source>
        <translation>修改批大小</translation>
    </message>
    <message>
        <source>Change optimizer</source>
        <translation>修改优化器</translation>
    </message>
    <message>
        <source>Change GPU</source>
        <translation>更换 GPU</translation>
    </message>
    <message>
        <source>Change overhead</source>
        <translation>修改框架开销</translation>
    </message>
    <message>
        <source>Freeze layer</source>
        <translation>冻结层</translation>
    </message>
    <message>
        <source>Unfreeze layer</source>
        <translation>解冻层</translation>
    </message>
    <message>
        <source>Checkpoint block</source>
        <translation>对块做检查点</translation>
    </message>
    <message>
        <source>Stop checkpointing block</source>
        <translation>取消块的检查点</translation>
    </message>
    <message>
        <source>Select the layers to checkpoint.</source>
        <translation>请选择要做检查点的层。</translation>
    </message>
    <message>
        <source>Only top-level layers can be checkpointed as a block.</source>
        <translation>只有顶层的层才能作为一个块做检查点。</translation>
    </message>
    <message>
        <source>Cannot checkpoint these layers as one block: &quot;%1&quot; after them uses &quot;%2&quot; inside it.</source>
        <translation>无法把这些层作为一个块做检查点：其后的“%1”用到了块内的“%2”。</translation>
    </message>
    <message>
        <source>Checkpoint selection</source>
        <translation>对所选层做检查点</translation>
    </message>
    <message>
        <source>Change accumulation steps</source>
        <translation>修改累积步数</translation>
    </message>
    <message>
        <source>Change parallelism</source>
        <translation>修改并行方式</translation>
    </message>
    <message>
        <source>Change GPU count</source>
        <translation>修改 GPU 数</translation>
    </message>
    <message>
        <source>Change tensor parallelism</source>
        <translation>修改张量并行</translation>
    </message>
    <message>
        <source>Change sharding</source>
        <translation>修改分片方式</translation>
    </message>
    <message>
        <source>Offload optimizer state</source>
        <translation>卸载优化器状态</translation>
    </message>
    <message>
        <source>Keep optimizer state on the GPU</source>
        <translation>将优化器状态保留在 GPU 上</translation>
    </message>
    <message>
        <source>Use an 8-bit optimizer</source>
        <translation>使用 8 位优化器</translation>
    </message>
    <message>
        <source>Use a 32-bit optimizer</source>
        <translation>使用 32 位优化器</translation>
    </message>
    <message>
        <source>Change assumed utilisation</source>
        <translation>修改假定利用率</translation>
    </message>
    <message>
        <source>Change checkpointing</source>
        <translation>修改激活检查点</translation>
    </message>
    <message>
        <source>Change attention implementation</source>
        <translation>修改注意力实现</translation>
    </message>
    <message>
        <source>Change LoRA</source>
        <translation>修改 LoRA</translation>
    </message>
    <message>
        <source>Change sequence length</source>
        <translation>修改序列长度</translation>
    </message>
    <message>
        <source>Select the layers to wrap.</source>
        <translation>请选择要包装的层。</translation>
    </message>
    <message>
        <source>Cannot wrap these layers in a residual block: they change the shape from %1 to %2, and a residual connection adds the block&apos;s input to its output.</source>
        <translation>无法将这些层包装为残差块：它们把形状从 %1 变为 %2，而残差连接要把块的输入加到其输出上。</translation>
    </message>
    <message>
        <source>Cannot wrap these layers in a residual block: their output cannot be added to their input.</source>
        <translation>无法将这些层包装为残差块：它们的输出无法与输入相加。</translation>
    </message>
    <message>
        <source>Change MoE imbalance</source>
        <translation>修改 MoE 不均衡度</translation>
    </message>
    <message>
        <source>Change optimizer implementation</source>
        <translation>修改优化器实现方式</translation>
    </message>
    <message>
        <source>Use expandable segments</source>
        <translation>使用可扩展段</translation>
    </message>
    <message>
        <source>Use fixed segments</source>
        <translation>使用固定段</translation>
    </message>
    <message>
        <source>Apply calibration</source>
        <translation>应用校准</translation>
    </message>
    <message>
        <source>Remove calibration</source>
        <translation>移除校准</translation>
    </message>
    <message>
        <source>Use sequence parallelism</source>
        <translation>使用序列并行</translation>
    </message>
    <message>
        <source>Stop sequence parallelism</source>
        <translation>停用序列并行</translation>
    </message>
    <message>
        <source>Change pipeline stages</source>
        <translation>更改流水线阶段数</translation>
    </message>
    <message>
        <source>Change pipeline schedule</source>
        <translation>更改流水线调度</translation>
    </message>
    <message>
        <source>Change virtual stages</source>
        <translation>更改虚拟阶段数</translation>
    </message>
    <message>
        <source>Change layers per stage</source>
        <translation>更改每阶段层数</translation>
    </message>
    <message>
        <source>Change context parallelism</source>
        <translation>更改上下文并行</translation>
    </message>
    <message>
        <source>Change expert parallelism</source>
        <translation>更改专家并行</translation>
    </message>
    <message>
        <source>Change activation offload</source>
        <translation>更改激活卸载</translation>
    </message>
    <message>
        <source>Change GPUs per node</source>
        <translation>修改每节点 GPU 数</translation>
    </message>
    <message>
        <source>Change bandwidth between nodes</source>
        <translation>修改节点间带宽</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ElidedLabel</name>
    <message>
        <source>Click to show one line each</source>
        <translation>单击改为每条一行</translation>
    </message>
    <message>
        <source>Click to show in full</source>
        <translation>单击显示全文</translation>
    </message>
</context>
<context>
    <name>headroom::ui::EntryNote</name>
    <message>
        <source>“%1” cannot be typed here, and “%2” is not allowed: %3 takes %4.</source>
        <translation>这里不能输入“%1”，也不允许“%2”：%3 只接受%4。</translation>
    </message>
    <message>
        <source>“%1” cannot be typed here: %2 takes %3.</source>
        <translation>这里不能输入“%1”：%2 只接受%3。</translation>
    </message>
    <message>
        <source>“%1” is not allowed: %2 takes %3.</source>
        <translation>不允许“%1”：%2 只接受%3。</translation>
    </message>
    <message>
        <source>“%1” is not allowed, so %2 stays %3.</source>
        <translation>不允许“%1”，因此 %2 仍为 %3。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ErrorText</name>
    <message>
        <source>input %1</source>
        <translation>输入 %1</translation>
    </message>
    <message>
        <source>%1 element %2</source>
        <translation>%1 的第 %2 个元素</translation>
    </message>
    <message>
        <source>input %1 of layer %2</source>
        <translation>第 %2 层的输入 %1</translation>
    </message>
    <message>
        <source>the layers of block %1</source>
        <translation>块 %1 中的层</translation>
    </message>
    <message>
        <source>%1 element %2 of layer %3</source>
        <translation>第 %3 层 %1 的第 %2 个元素</translation>
    </message>
    <message>
        <source>%1 of layer %2</source>
        <translation>第 %2 层的 %1</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>dimension %1 of the input shape</source>
        <translation>输入形状的第 %1 维</translation>
    </message>
    <message>
        <source>LoRA target %1</source>
        <translation>LoRA 目标 %1</translation>
    </message>
    <message>
        <source>Layer %1 (%2): %3</source>
        <translation>第 %1 层（%2）：%3</translation>
    </message>
    <message>
        <source>Layer %1: %2</source>
        <translation>第 %1 层：%2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::GpuCompareView</name>
    <message>
        <source>Samples per optimizer step the GPU must reach</source>
        <translation>GPU 每个优化器步骤必须达到的样本数</translation>
    </message>
    <message>
        <source>&amp;Target effective batch:</source>
        <translation>目标有效批次(&amp;T)：</translation>
    </message>
    <message>
        <source>Cannot compare: %1</source>
        <translation>无法比较：%1</translation>
    </message>
    <message>
        <source>No GPU listed reaches the target with this set-up: Make it fit finds set-ups that do.</source>
        <translation>列表中没有 GPU 能以此设置达到目标：“适配方案”可以找出能达到的设置。</translation>
    </message>
    <message>
        <source>The smallest GPU that reaches the target: %1.</source>
        <translation>达到目标的最小 GPU：%1。</translation>
    </message>
    <message>
        <source>Same as the set-up</source>
        <translation>与训练设置相同</translation>
    </message>
    <message>
        <source>The network is empty: add layers to compare GPUs for it.</source>
        <translation>网络为空：添加层后才能为它比较 GPU。</translation>
    </message>
    <message>
        <source>&amp;Use This GPU</source>
        <translation>使用此 GPU(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Use %1</source>
        <translation>使用 %1(&amp;U)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::GpuComparisonModel</name>
    <message>
        <source>The GPU with the least memory that reaches the target effective batch</source>
        <translation>达到目标有效批次、内存最少的 GPU</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>%1 (effective %2)</source>
        <translation>%1（有效 %2）</translation>
    </message>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>最大批次</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>步骤时间</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>The GPU&apos;s memory</source>
        <translation>GPU 的显存</translation>
    </message>
    <message>
        <source>Peak (batch %1)</source>
        <translation>峰值（批次 %1）</translation>
    </message>
    <message>
        <source>Whether the set-up&apos;s batch, %1, fits this GPU</source>
        <translation>当前设置的批次 %1 能否放进这块 GPU</translation>
    </message>
    <message>
        <source>Fits batch %1</source>
        <translation>能放下批次 %1</translation>
    </message>
    <message>
        <source>The largest micro-batch that fits this GPU</source>
        <translation>这块 GPU 能放下的最大微批次</translation>
    </message>
    <message>
        <source>Whether the largest batch that fits reaches the target effective batch</source>
        <translation>能放下的最大批次能否达到目标有效批次</translation>
    </message>
    <message>
        <source>Reaches target</source>
        <translation>达到目标</translation>
    </message>
    <message>
        <source>One optimizer step at the set-up&apos;s batch</source>
        <translation>当前设置的批次下，一个优化器步</translation>
    </message>
    <message>
        <source>Samples per second at the set-up&apos;s batch</source>
        <translation>当前设置的批次下，每秒样本数</translation>
    </message>
    <message>
        <source>What the GPU holds at the peak of one training step at the set-up&apos;s batch, %1: what PyTorch&apos;s caching allocator reserves, plus the overhead</source>
        <translation>当前设置的批次 %1 下一个训练步骤峰值时 GPU 的占用：PyTorch 缓存分配器保留的内存加开销</translation>
    </message>
    <message>
        <source>Double-click (or right-click) to use this GPU</source>
        <translation>双击（或右键单击）即可使用此 GPU</translation>
    </message>
</context>
<context>
    <name>headroom::ui::GpuSelector</name>
    <message>
        <source>Type to search GPUs</source>
        <translation>输入以搜索 GPU</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Custom GPUs</source>
        <translation>自定义 GPU</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Also: %1</source>
        <translation>别名：%1</translation>
    </message>
    <message>
        <source>Custom...</source>
        <translation>自定义...</translation>
    </message>
    <message>
        <source>A GPU of your own: its memory and, if you have them, its speed and links. On a custom GPU, edits it</source>
        <translation>你自己的 GPU：它的显存，以及已知的速度和连接数据。当前为自定义 GPU 时，编辑该 GPU</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LanguageMenu</name>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System Language</source>
        <translation>跟随系统语言</translation>
    </message>
    <message>
        <source>Headroom speaks %1 from its next start.</source>
        <translation>下次启动时，Headroom 将使用%1。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LayerActivationsView</name>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Activations / sample</source>
        <translation>激活值 / 样本</translation>
    </message>
    <message>
        <source>Click a column to sort by it</source>
        <translation>点击列标题即可按该列排序</translation>
    </message>
    <message>
        <source>No layer keeps activations for the backward pass.</source>
        <translation>没有层为反向传播保留激活值。</translation>
    </message>
    <message numerus="yes">
        <source>Memory each of the %1 layers keeps per sample for the backward pass (%2 in all). %3 the %n heaviest  %4 the others. Click a column to sort.</source>
        <translation>
            <numerusform>%1 个层各自每样本为反向传播保留的显存（合计 %2）。%3 最重的 %n 个  %4 其他。点击列标题可排序。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2): keeps %3 per sample for the backward pass, %4 of all activations</source>
        <translation>%1（%2）：每样本为反向传播保留 %3，占全部激活值的 %4</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LayerEditor</name>
    <message>
        <source>&amp;Add Layer</source>
        <translation>添加层(&amp;A)</translation>
    </message>
    <message>
        <source>Repeat Block</source>
        <translation>重复块</translation>
    </message>
    <message>
        <source>A block of layers repeated several times</source>
        <translation>重复若干次的一组层</translation>
    </message>
    <message>
        <source>&amp;Remove Layer</source>
        <translation>删除层(&amp;R)</translation>
    </message>
    <message>
        <source>D&amp;uplicate Layer</source>
        <translation>复制层(&amp;U)</translation>
    </message>
    <message>
        <source>Move &amp;Up</source>
        <translation>上移(&amp;U)</translation>
    </message>
    <message>
        <source>Move Do&amp;wn</source>
        <translation>下移(&amp;W)</translation>
    </message>
    <message>
        <source>Wrap in Residual &amp;Block</source>
        <translation>包装为残差块(&amp;B)</translation>
    </message>
    <message>
        <source>Puts the selected layers in a block whose input is added to its output</source>
        <translation>将所选层放入一个块中，块的输入会加到其输出上</translation>
    </message>
    <message>
        <source>Add Layer</source>
        <translation>添加层</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Residual</source>
        <translation>残差</translation>
    </message>
    <message>
        <source>Add %1</source>
        <translation>添加 %1</translation>
    </message>
    <message>
        <source>&amp;Checkpoint Selection</source>
        <translation>检查点化所选层(&amp;C)</translation>
    </message>
    <message>
        <source>Puts the selected top-level layers in a checkpointed block: backward recomputes their activations instead of keeping them</source>
        <translation>把所选顶层的层放入一个检查点块：反向传播时重新计算其激活值，而不是保留它们</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Layer %1 is invalid: see its properties below.</source>
        <translation>第 %1 层无效：请看下方的属性。</translation>
    </message>
    <message>
        <source>Layer %1 (%2) is invalid: see its properties below.</source>
        <translation>第 %1 层（%2）无效：请看下方的属性。</translation>
    </message>
    <message>
        <source>&amp;Freeze</source>
        <translation>冻结(&amp;F)</translation>
    </message>
    <message>
        <source>No gradients or optimizer state for the selected layers&apos; parameters</source>
        <translation>所选层的参数不再有梯度和优化器状态</translation>
    </message>
    <message>
        <source>Freeze layers</source>
        <translation>冻结层</translation>
    </message>
    <message>
        <source>Unfreeze layers</source>
        <translation>取消冻结层</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LayerTableModel</name>
    <message>
        <source>Repeat × %1</source>
        <translation>重复 × %1</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Output shape</source>
        <translation>输出形状</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Memory kept for the backward pass per sample (a Repeat block: all its repetitions)</source>
        <translation>每个样本为反向传播保留的显存（重复块：所有重复之和）</translation>
    </message>
    <message>
        <source>Layers: %1 · Parameters: %2 · Activations per sample: %3</source>
        <translation>层数：%1 · 参数量：%2 · 每样本激活：%3</translation>
    </message>
    <message>
        <source>frozen</source>
        <translation>冻结</translation>
    </message>
    <message>
        <source>checkpointed</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>LoRA +%1</source>
        <translation>LoRA +%1</translation>
    </message>
    <message>
        <source>Frozen: no gradients or optimizer state for its parameters</source>
        <translation>已冻结：其参数没有梯度和优化器状态</translation>
    </message>
    <message>
        <source>Checkpointed: its activations are recomputed in the backward pass</source>
        <translation>已做检查点：其激活值在反向传播时重新计算</translation>
    </message>
    <message>
        <source>LoRA adapters: %1 trainable parameters</source>
        <translation>LoRA 适配器：%1 个可训练参数</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Frozen layers, layers recomputed by activation checkpointing, and LoRA adapter parameters</source>
        <translation>冻结的层、由激活检查点重计算的层，以及 LoRA 适配器参数</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Parameters: %1</source>
        <translation>参数：%1</translation>
    </message>
    <message>
        <source>%1 per sample kept for the backward pass</source>
        <translation>每样本为反向传播保留 %1</translation>
    </message>
    <message>
        <source>Forward %1 + backward %2 per sample</source>
        <translation>每样本前向 %1 + 反向 %2</translation>
    </message>
    <message>
        <source>Activations
per sample</source>
        <translation>每样本
激活值</translation>
    </message>
    <message>
        <source>FLOPs
per sample</source>
        <translation>每样本
FLOPs</translation>
    </message>
    <message>
        <source>Forward + backward floating-point operations per sample (a Repeat block: all its repetitions); checkpoint recomputation is in the summary</source>
        <translation>每样本前向加反向的浮点运算次数（重复块：所有重复的合计）；检查点重计算见摘要</translation>
    </message>
    <message>
        <source>The network is empty: add layers (Add Layer, or Layer &gt; Add Layer) to see how much memory training it takes.</source>
        <translation>网络为空：添加层（“添加层”按钮，或“层 &gt; 添加层”）后即可看到训练所需的显存。</translation>
    </message>
    <message>
        <source>%1: no name in the file, so named by its place in its list counted from 0, as PyTorch names the layers of an nn.Sequential. Messages call it layer %2 (%3).</source>
        <translation>%1：文件中没有名称，因此按其在列表中的位置（从 0 开始计数）命名，与 PyTorch 为 nn.Sequential 的各层命名的方式相同。消息中称其为第 %2 层（%3）。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MainWindow</name>
    <message>
        <source>Headroom models (*.json);;All files (*)</source>
        <translation>Headroom 模型 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Training set-up</source>
        <translation>训练设置</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>打开(&amp;O)...</translation>
    </message>
    <message>
        <source>Open Model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>Open &amp;Preset</source>
        <translation>打开预设(&amp;P)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As...</source>
        <translation>另存为(&amp;A)...</translation>
    </message>
    <message>
        <source>&amp;Export Report...</source>
        <translation>导出报告(&amp;E)...</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Layer</source>
        <translation>层(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Headroom</source>
        <translation>关于 Headroom(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>关于 &amp;Qt</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <source>Cannot open the model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <source>Cannot open the preset</source>
        <translation>无法打开预设</translation>
    </message>
    <message>
        <source>Save Model As</source>
        <translation>模型另存为</translation>
    </message>
    <message>
        <source>Cannot save the model</source>
        <translation>无法保存模型</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>%1 - %2 - batch %3.pdf</source>
        <translation>%1 - %2 - 批大小 %3.pdf</translation>
    </message>
    <message>
        <source>Export Report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Cannot export the report</source>
        <translation>无法导出报告</translation>
    </message>
    <message>
        <source>Report written to %1</source>
        <translation>报告已写入 %1</translation>
    </message>
    <message>
        <source>Clear Recent Files</source>
        <translation>清除最近文件</translation>
    </message>
    <message>
        <source>%1[*] — Headroom</source>
        <translation>%1[*] — Headroom</translation>
    </message>
    <message>
        <source>About Headroom</source>
        <translation>关于 Headroom</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Plans GPU memory for deep-learning training: build or open a network, pick a GPU and see the largest batch that fits.&lt;/p&gt;&lt;p&gt;Estimates follow PyTorch&apos;s memory behaviour; see the user guide for the assumptions.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;深度学习训练的 GPU 显存规划工具：构建或打开一个网络，选择 GPU，即可看到能放下的最大批大小。&lt;/p&gt;&lt;p&gt;估算遵循 PyTorch 的显存行为；相关假设见用户指南。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Models (*.json *.onnx);;Headroom models (*.json);;ONNX models (*.onnx);;Hugging Face configs (config.json);;All files (*)</source>
        <translation>模型 (*.json *.onnx);;Headroom 模型 (*.json);;ONNX 模型 (*.onnx);;Hugging Face 配置 (config.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Models to import (*.onnx config.json);;ONNX models (*.onnx);;Hugging Face configs (config.json);;All files (*)</source>
        <translation>要导入的模型 (*.onnx config.json);;ONNX 模型 (*.onnx);;Hugging Face 配置 (config.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>&amp;Import...</source>
        <translation>导入(&amp;I)...</translation>
    </message>
    <message>
        <source>Opens an ONNX model or a Hugging Face config.json as a new Headroom model</source>
        <translation>将 ONNX 模型或 Hugging Face 的 config.json 作为新的 Headroom 模型打开</translation>
    </message>
    <message>
        <source>Import Model</source>
        <translation>导入模型</translation>
    </message>
    <message>
        <source>Cannot import the model</source>
        <translation>无法导入模型</translation>
    </message>
    <message>
        <source>Imported %1</source>
        <translation>已导入 %1</translation>
    </message>
    <message>
        <source>%1 is the file the model was imported from: Headroom saves models as .json files and leaves it as it is. Choose another name.</source>
        <translation>%1 是导入模型的源文件：Headroom 把模型保存为 .json 文件，不会改动它。请另选一个文件名。</translation>
    </message>
    <message>
        <source>%1 (imported from %2)[*] — Headroom</source>
        <translation>%1（导入自 %2）[*] — Headroom</translation>
    </message>
    <message>
        <source>&amp;Undo %1</source>
        <translation>撤销 %1(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo %1</source>
        <translation>重做 %1(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <source>Opens the user guide installed with Headroom</source>
        <translation>打开随 Headroom 安装的用户指南</translation>
    </message>
    <message>
        <source>%1 in the documentation (Help &gt; User Guide)</source>
        <translation>文档中的 %1（帮助 &gt; 用户指南）</translation>
    </message>
    <message>
        <source>Cannot open the user guide</source>
        <translation>无法打开用户指南</translation>
    </message>
    <message>
        <source>The documentation is not installed next to Headroom (it belongs in %1).</source>
        <translation>Headroom 旁边没有安装文档（应位于 %1）。</translation>
    </message>
    <message>
        <source>No application could open %1. Open it with a text editor or a Markdown viewer.</source>
        <translation>没有应用程序能打开 %1。请用文本编辑器或 Markdown 查看器打开。</translation>
    </message>
    <message>
        <source>The folder %1 does not exist. Choose another folder for %2.</source>
        <translation>文件夹 %1 不存在。请为 %2 另选一个文件夹。</translation>
    </message>
    <message>
        <source>Make It Fit</source>
        <translation>适配方案</translation>
    </message>
    <message>
        <source>Compare GPUs</source>
        <translation>比较 GPU</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>规划(&amp;P)</translation>
    </message>
    <message>
        <source>Make It &amp;Fit...</source>
        <translation>适配方案(&amp;F)...</translation>
    </message>
    <message>
        <source>The set-ups that fit the GPU and reach a batch, fastest first</source>
        <translation>能放进 GPU 并达到批次的设置，按速度从快到慢</translation>
    </message>
    <message>
        <source>&amp;Compare GPUs...</source>
        <translation>比较 GPU(&amp;C)...</translation>
    </message>
    <message>
        <source>This set-up on every GPU of the catalogue</source>
        <translation>此设置在目录中每块 GPU 上的情况</translation>
    </message>
    <message>
        <source>&amp;Include Set-ups in Reports</source>
        <translation>在报告中包含设置方案(&amp;I)</translation>
    </message>
    <message>
        <source>Exported reports add the Make It Fit table for the panel&apos;s goal</source>
        <translation>导出的报告附上按面板目标生成的“适配方案”表格</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Dropped from the set-up, as no Linear layer of this model has the name: LoRA target %1%2.</source>
        <translation>已从设置中移除（此模型没有同名的 Linear 层）：LoRA 目标 %1%2。</translation>
    </message>
    <message>
        <source> (LoRA now adapts every Linear layer but the head)</source>
        <translation>（LoRA 现在适配除输出头外的所有 Linear 层）</translation>
    </message>
    <message>
        <source>%1 - %2 - %3.png</source>
        <translation>%1 - %2 - %3.png</translation>
    </message>
    <message>
        <source>Export Image</source>
        <translation>导出图像</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>Cannot export the image</source>
        <translation>无法导出图像</translation>
    </message>
    <message>
        <source>%1 could not be written: check that its folder exists and can be written to.</source>
        <translation>无法写入 %1：请检查其文件夹是否存在且可写。</translation>
    </message>
    <message>
        <source>Image written to %1</source>
        <translation>图像已写入 %1</translation>
    </message>
    <message>
        <source>Measured runs (*.pickle *.pkl *.json *.json.gz *.html *.htm *.gz);;Memory snapshots (*.pickle *.pkl);;memory_viz pages (*.html *.htm);;Profiler exports (*.json *.json.gz *.gz);;All files (*)</source>
        <translation>测量的运行 (*.pickle *.pkl *.json *.json.gz *.html *.htm *.gz);;内存快照 (*.pickle *.pkl);;memory_viz 页面 (*.html *.htm);;Profiler 导出 (*.json *.json.gz *.gz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open Measured Run</source>
        <translation>打开测量的运行</translation>
    </message>
    <message>
        <source>Cannot open the measured run</source>
        <translation>无法打开测量的运行</translation>
    </message>
    <message>
        <source>Opened %1 beside the plan</source>
        <translation>已在计划旁打开 %1</translation>
    </message>
    <message>
        <source>Measured run: %1</source>
        <translation>测量的运行：%1</translation>
    </message>
    <message>
        <source>Cannot open the file</source>
        <translation>无法打开文件</translation>
    </message>
    <message>
        <source>%1 is neither a model nor a measured run.
As a model: %2
As a measured run: %3</source>
        <translation>%1 既不是模型，也不是测量的运行。
作为模型：%2
作为测量的运行：%3</translation>
    </message>
    <message>
        <source>Open &amp;Measured Run...</source>
        <translation>打开测量的运行(&amp;M)...</translation>
    </message>
    <message>
        <source>Opens a PyTorch memory snapshot or profiler export beside the plan</source>
        <translation>在计划旁打开 PyTorch 内存快照或 profiler 导出文件</translation>
    </message>
    <message>
        <source>&amp;Close Measured Run</source>
        <translation>关闭测量的运行(&amp;C)</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>流水线阶段</translation>
    </message>
    <message>
        <source>%1 is not JSON text: %2</source>
        <translation>%1 不是 JSON 文本：%2</translation>
    </message>
    <message>
        <source>%1 is neither a custom GPU&apos;s JSON object nor “name&lt;TAB&gt;bytes”: %2</source>
        <translation>%1 既不是自定义 GPU 的 JSON 对象，也不是“名称&lt;TAB&gt;字节数”：%2</translation>
    </message>
    <message>
        <source>Skipped a custom GPU the settings hold: %1</source>
        <translation>已跳过设置中保存的一个自定义 GPU：%1</translation>
    </message>
    <message numerus="yes">
        <source>Skipped %n custom GPUs the settings hold: %1</source>
        <translation>
            <numerusform>已跳过设置中保存的 %n 个自定义 GPU：%1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>headroom::ui::MakeItFitPanel</name>
    <message>
        <source>As large as fits</source>
        <translation>能放下的最大值</translation>
    </message>
    <message>
        <source>Samples per optimizer step: micro-batch × accumulation steps × data-parallel GPUs</source>
        <translation>每个优化器步骤的样本数：微批次 × 累积步数 × 数据并行 GPU 数</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>无限制</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>LoRA / QLoRA</source>
        <translation>LoRA / QLoRA</translation>
    </message>
    <message>
        <source>8-bit optimizer state</source>
        <translation>8 位优化器状态</translation>
    </message>
    <message>
        <source>Changes what training computes: only proposed when ticked</source>
        <translation>会改变训练的计算内容：仅在勾选时提出</translation>
    </message>
    <message>
        <source>&amp;Effective batch:</source>
        <translation>有效批次(&amp;E)：</translation>
    </message>
    <message>
        <source>&amp;Longest step:</source>
        <translation>最长步骤(&amp;L)：</translation>
    </message>
    <message>
        <source>May also change:</source>
        <translation>还可以改变：</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>应用(&amp;A)</translation>
    </message>
    <message>
        <source>Set this set-up in the plan (Edit &gt; Undo takes it back)</source>
        <translation>在计划中采用此设置（编辑 &gt; 撤销可恢复）</translation>
    </message>
    <message>
        <source>Cannot plan: %1</source>
        <translation>无法规划：%1</translation>
    </message>
    <message>
        <source>Nothing fits. Closest: %1 (%2), but %3.</source>
        <translation>没有能放下的设置。最接近的：%1（%2），但%3。</translation>
    </message>
    <message>
        <source>Nothing fits.</source>
        <translation>没有能放下的设置。</translation>
    </message>
    <message>
        <source>Apply set-up: %1</source>
        <translation>应用设置：%1</translation>
    </message>
    <message>
        <source>each at the batch that reaches an effective batch of %1</source>
        <translation>每个都以达到有效批次 %1 的批次运行</translation>
    </message>
    <message>
        <source>each at the largest batch that fits</source>
        <translation>每个都以能放下的最大批次运行</translation>
    </message>
    <message>
        <source>Set-ups that fit: %1, fastest first, %2. ★ marks the Pareto front: no other set-up is as fast with less memory.</source>
        <translation>能放下的设置：%1 个，按速度从快到慢，%2。★ 标记帕累托前沿：没有其他设置能以更少内存达到同样速度。</translation>
    </message>
    <message>
        <source>The network is empty: add layers to find the set-ups that fit.</source>
        <translation>网络为空：添加层后才能找到能放下的设置。</translation>
    </message>
    <message>
        <source>To stay quick, the search left part of its work out (hover here for what); the set-ups listed are estimated in full.</source>
        <translation>为保持快速，搜索省略了部分工作（将鼠标悬停在此处查看省略了什么）；列出的设置均经过完整估算。</translation>
    </message>
    <message>
        <source>Left out:</source>
        <translation>省略的内容：</translation>
    </message>
    <message>
        <source>Order: fastest first; at equal speed, training unchanged first, then less traffic between GPUs (not in the speed: offload, tensor parallelism, ZeRO-3), less memory, a larger max batch. A set-up another matches or beats on all of these is not listed.</source>
        <translation>排序：最快的在前；速度相同时，不改变训练的在前，然后是 GPU 之间通信较少的（速度估计未计入：卸载、张量并行、ZeRO-3），再是显存较少的、最大批量较大的。若另一设置在以上各项上都不比某设置差，该设置不列出。</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>&amp;Set-ups of This GPU</source>
        <translation>此 GPU 的设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Cluster Layouts</source>
        <translation>集群布局(&amp;C)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MeasuredRunPanel</name>
    <message>
        <source>memory snapshot (pickle)</source>
        <translation>内存快照（pickle）</translation>
    </message>
    <message>
        <source>memory snapshot (JSON)</source>
        <translation>内存快照（JSON）</translation>
    </message>
    <message>
        <source>memory snapshot (memory_viz page)</source>
        <translation>内存快照（memory_viz 页面）</translation>
    </message>
    <message>
        <source>profiler memory timeline</source>
        <translation>profiler 内存时间线</translation>
    </message>
    <message>
        <source>profiler Chrome trace</source>
        <translation>profiler Chrome 跟踪</translation>
    </message>
    <message>
        <source>Before the steps</source>
        <translation>训练步之前</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>优化器步</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>临时张量</translation>
    </message>
    <message>
        <source>Unattributed</source>
        <translation>未归属</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1（%2 %）</translation>
    </message>
    <message>
        <source>Close Run</source>
        <translation>关闭运行</translation>
    </message>
    <message>
        <source>Calibrate Plan</source>
        <translation>校准计划</translation>
    </message>
    <message>
        <source>Adds what the run held beyond the plan to the plan (Edit &gt; Undo takes it back)</source>
        <translation>把运行中超出计划的内存加入计划（编辑 &gt; 撤销可取消）</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>测量</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>&lt;b&gt;Not in the plan&lt;/b&gt; (largest first)</source>
        <translation>&lt;b&gt;计划中没有的&lt;/b&gt;（从大到小）</translation>
    </message>
    <message>
        <source>No measured run is open (File &gt; Open Measured Run...).</source>
        <translation>没有打开测量的运行（文件 &gt; 打开测量的运行...）。</translation>
    </message>
    <message>
        <source>no training step found</source>
        <translation>未找到训练步</translation>
    </message>
    <message>
        <source>training steps found: %1 (the first, and %2 steady)</source>
        <translation>找到的训练步：%1（第一步，以及 %2 个稳定步）</translation>
    </message>
    <message>
        <source>training steps found: %1</source>
        <translation>找到的训练步：%1</translation>
    </message>
    <message>
        <source>batch %1 (the plan&apos;s, assumed: not given)</source>
        <translation>批大小 %1（假定与计划相同：未给出）</translation>
    </message>
    <message>
        <source>batch %1 (given)</source>
        <translation>批大小 %1（已给出）</translation>
    </message>
    <message>
        <source>%1 (the plan&apos;s, assumed: not given)</source>
        <translation>%1（假定与计划相同：未给出）</translation>
    </message>
    <message>
        <source>%1 (given)</source>
        <translation>%1（已给出）</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — %2, %3.&lt;br&gt;Compared at %4, %5.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; — %2，%3。&lt;br&gt;比较条件：%4，%5。</translation>
    </message>
    <message>
        <source>The run&apos;s set-up was not given: the plan&apos;s is assumed, so a difference may be the set-up&apos;s rather than the model&apos;s.</source>
        <translation>未给出运行的设置：假定与计划相同，因此差异可能来自设置而不是模型。</translation>
    </message>
    <message>
        <source>&lt;b&gt;The plan&apos;s set-up differs from the run&apos;s.&lt;/b&gt;</source>
        <translation>&lt;b&gt;计划的设置与运行的不同。&lt;/b&gt;</translation>
    </message>
    <message>
        <source>The step&apos;s peaks</source>
        <translation>训练步的峰值</translation>
    </message>
    <message>
        <source>Allocated (max_memory_allocated)</source>
        <translation>已分配（max_memory_allocated）</translation>
    </message>
    <message>
        <source>Reserved (max_memory_reserved)</source>
        <translation>已保留（max_memory_reserved）</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>By phase</source>
        <translation>按阶段</translation>
    </message>
    <message>
        <source>%1, allocated</source>
        <translation>%1，已分配</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <source>%1, reserved</source>
        <translation>%1，已保留</translation>
    </message>
    <message>
        <source>By component at the allocated peak</source>
        <translation>已分配峰值处按组成部分</translation>
    </message>
    <message>
        <source>not known</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>%1 (a smaller block, not described)</source>
        <translation>%1（较小的块，未说明）</translation>
    </message>
    <message>
        <source>... and %1 smaller blocks</source>
        <translation>……以及另外 %1 个较小的块</translation>
    </message>
    <message>
        <source>Every block matched a tensor of the plan.</source>
        <translation>每个块都对应了计划中的一个张量。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Notes&lt;/b&gt;&lt;br&gt;</source>
        <translation>&lt;b&gt;说明&lt;/b&gt;&lt;br&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Calibration the run proposes&lt;/b&gt;</source>
        <translation>&lt;b&gt;运行建议的校准&lt;/b&gt;</translation>
    </message>
    <message>
        <source>%1 fixed + %2 per sample, read at batch %3.</source>
        <translation>固定 %1 + 每个样本 %2，在批大小 %3 下得出。</translation>
    </message>
    <message>
        <source>The largest batch would be %1 (now %2).</source>
        <translation>最大批大小将为 %1（当前 %2）。</translation>
    </message>
    <message>
        <source>The plan is not calibrated.</source>
        <translation>计划未校准。</translation>
    </message>
    <message>
        <source>a measured run</source>
        <translation>一次测量的运行</translation>
    </message>
    <message>
        <source>Calibrated from %1: +%2 fixed, +%3 per sample</source>
        <translation>已根据 %1 校准：固定 +%2，每个样本 +%3</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MemoryChartView</name>
    <message>
        <source>Over budget</source>
        <translation>超出显存</translation>
    </message>
    <message>
        <source>Memory vs. batch size</source>
        <translation>显存与批大小</translation>
    </message>
    <message>
        <source>Activations per layer</source>
        <translation>各层激活</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>无法估算</translation>
    </message>
    <message>
        <source>Memory (%1)</source>
        <translation>显存（%1）</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>批大小 %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Batch %1</source>
        <translation>批大小 %1</translation>
    </message>
    <message>
        <source>Total: %1 of %2</source>
        <translation>合计：%1 / %2</translation>
    </message>
    <message>
        <source>Batch size (log scale)</source>
        <translation>批大小（对数刻度）</translation>
    </message>
    <message>
        <source>Micro-batch per GPU (log scale)</source>
        <translation>每 GPU 微批大小（对数刻度）</translation>
    </message>
    <message>
        <source>max %1</source>
        <translation>最大 %1</translation>
    </message>
    <message>
        <source>%1 per GPU</source>
        <translation>每 GPU %1</translation>
    </message>
    <message>
        <source>During one step</source>
        <translation>单步之内</translation>
    </message>
    <message>
        <source>Reserved by PyTorch at batch %1, with the overhead: %2</source>
        <translation>批量 %1 时 PyTorch 预留的显存（含开销）：%2</translation>
    </message>
    <message>
        <source>&amp;Copy Image</source>
        <translation>复制图像(&amp;C)</translation>
    </message>
    <message>
        <source>Copies the chart to the clipboard as an image</source>
        <translation>将图表作为图像复制到剪贴板</translation>
    </message>
    <message>
        <source>Export &amp;Image...</source>
        <translation>导出图像(&amp;I)...</translation>
    </message>
    <message>
        <source>Saves the chart as a PNG image</source>
        <translation>将图表保存为 PNG 图像</translation>
    </message>
    <message>
        <source>Export &amp;Report...</source>
        <translation>导出报告(&amp;R)...</translation>
    </message>
    <message>
        <source>Writes the PDF report of the plan, with this chart</source>
        <translation>写出此方案的 PDF 报告（含此图表）</translation>
    </message>
    <message>
        <source>during one step</source>
        <translation>单步之内</translation>
    </message>
    <message>
        <source>memory vs batch size</source>
        <translation>显存与批大小</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PipelineStagesView</name>
    <message>
        <source>Stage %1: %2</source>
        <translation>阶段 %1：%2</translation>
    </message>
    <message>
        <source>%1 stages, %2, %3 micro-batches (the accumulation steps), bubble %4. The charts show %5; choose a stage to chart it.</source>
        <translation>%1 个阶段，%2，%3 个微批次（即梯度累积步数），气泡 %4。图表显示%5；选择一个阶段即可绘制它。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanCandidateModel</name>
    <message>
        <source>This set-up computes something different from the one you have: the model it trains can differ.</source>
        <translation>此设置的计算与当前设置不同：训练出的模型可能不同。</translation>
    </message>
    <message>
        <source>The same training as the set-up you have, run differently.</source>
        <translation>与当前设置的训练相同，只是运行方式不同。</translation>
    </message>
    <message>
        <source>On the Pareto front: no other set-up is as fast with less memory.</source>
        <translation>位于帕累托前沿：没有其他设置能以更少内存达到同样速度。</translation>
    </message>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>What changes</source>
        <translation>改变之处</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>最大批次</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>步骤时间</translation>
    </message>
    <message>
        <source>Tokens/s per GPU</source>
        <translation>每 GPU 词元/秒</translation>
    </message>
    <message>
        <source>Samples/s per GPU</source>
        <translation>每 GPU 样本/秒</translation>
    </message>
    <message>
        <source>Pareto</source>
        <translation>帕累托</translation>
    </message>
    <message>
        <source>Fastest first</source>
        <translation>按速度从快到慢</translation>
    </message>
    <message>
        <source>What the set-up changes in yours (“As set up”: nothing)</source>
        <translation>该设置对您的设置所做的改变（“与当前设置相同”：不改变）</translation>
    </message>
    <message>
        <source>Whether that changes what training computes</source>
        <translation>这是否改变训练的计算结果</translation>
    </message>
    <message>
        <source>The micro-batch (× accumulation steps × GPUs) the set-up runs to reach the goal: the target effective batch, or the largest that fits. Not your set-up&apos;s batch.</source>
        <translation>该设置为达到目标所运行的微批次（× 累积步数 × GPU 数）：目标有效批次，或能放下的最大批次。不是您当前设置的批次。</translation>
    </message>
    <message>
        <source>Planned batch</source>
        <translation>计划批次</translation>
    </message>
    <message>
        <source>The largest micro-batch that fits with this set-up</source>
        <translation>此设置下能放下的最大微批次</translation>
    </message>
    <message>
        <source>One optimizer step at the planned batch</source>
        <translation>计划批次下的一个优化器步</translation>
    </message>
    <message>
        <source>At the planned batch</source>
        <translation>在计划批次下</translation>
    </message>
    <message>
        <source>What each GPU holds at the peak at the planned batch: what PyTorch&apos;s caching allocator reserves, plus the overhead</source>
        <translation>计划批次峰值时每个 GPU 的占用：PyTorch 缓存分配器保留的内存加开销</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanController</name>
    <message>
        <source>The network is empty: add layers to see how much memory training it takes.</source>
        <translation>网络为空：添加层后即可看到训练所需的显存。</translation>
    </message>
    <message>
        <source>No estimate: the training set-up cannot be used (the reason is under the set-up).</source>
        <translation>无法估算：此训练配置不可用（原因见训练配置下方）。</translation>
    </message>
    <message>
        <source>No estimate until layer %1 is fixed.</source>
        <translation>修正第 %1 层之前无法估算。</translation>
    </message>
    <message>
        <source>No estimate until the network is fixed (the reason is under the layer table).</source>
        <translation>修正网络之前无法估算（原因见层表下方）。</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>无估算</translation>
    </message>
    <message>
        <source>Reserved by PyTorch&apos;s caching allocator: not simulated (%1). The max batch is from the tensors alone.</source>
        <translation>PyTorch 缓存分配器的预留内存：未模拟（%1）。最大批次仅按张量计算。</translation>
    </message>
    <message>
        <source>Stage %1 of %2 (chosen)</source>
        <translation>第 %1 阶段，共 %2 个（已选择）</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PropertyPanel</name>
    <message>
        <source>Network</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>One sample&apos;s shape without the batch axis, e.g. 3, 224, 224</source>
        <translation>单个样本的形状（不含批维度），例如 3, 224, 224</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Input shape:</source>
        <translation>输入形状：</translation>
    </message>
    <message>
        <source>Loss:</source>
        <translation>损失函数：</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <source>Inputs:</source>
        <translation>输入：</translation>
    </message>
    <message>
        <source>the previous layer</source>
        <translation>上一层</translation>
    </message>
    <message>
        <source>Names of the layers feeding this one, separated by commas (&quot;input&quot; is the network&apos;s input, &quot;repeat_input&quot; a block&apos;s)</source>
        <translation>为本层提供输入的层名，用逗号分隔（&quot;input&quot; 表示网络输入，&quot;repeat_input&quot; 表示块的输入）</translation>
    </message>
    <message>
        <source>Repeat:</source>
        <translation>重复：</translation>
    </message>
    <message>
        <source>×</source>
        <comment>after a Repeat block&apos;s count: 3x</comment>
        <translation> 次</translation>
    </message>
    <message>
        <source>two or more layer names</source>
        <translation>两个或更多层名</translation>
    </message>
    <message>
        <source>Repeats the layers inside it; &quot;repeat_input&quot; names the block&apos;s input.</source>
        <translation>重复其中的层；&quot;repeat_input&quot; 表示块的输入。</translation>
    </message>
    <message>
        <source>Unknown layer type</source>
        <translation>未知的层类型</translation>
    </message>
    <message>
        <source>Select a layer to edit it.</source>
        <translation>选择一个层进行编辑。</translation>
    </message>
    <message>
        <source>Layer %1: %2</source>
        <translation>第 %1 层：%2</translation>
    </message>
    <message>
        <source>Training:</source>
        <translation>训练：</translation>
    </message>
    <message>
        <source>Frozen</source>
        <translation>冻结</translation>
    </message>
    <message>
        <source>Not trained: no gradients or optimizer state for its parameters (on a block: every layer inside)</source>
        <translation>不参与训练：其参数没有梯度和优化器状态（作用于块时：块内所有层）</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Each repetition keeps only its input; backward recomputes the rest (activation checkpointing per block)</source>
        <translation>每次重复只保留其输入；其余的在反向传播时重新计算（按块激活检查点）</translation>
    </message>
    <message>
        <source>Takes effect when the set-up&apos;s checkpointing is &quot;%1&quot; (now &quot;%2&quot;).</source>
        <translation>在训练配置的激活检查点为“%1”时生效（当前为“%2”）。</translation>
    </message>
    <message>
        <source>Letters, digits, “_”, “.” and “-”; other layers use it in their inputs</source>
        <translation>字母、数字、“_”、“.”和“-”；其他层在其输入中使用这个名称</translation>
    </message>
    <message>
        <source>Type one sample&apos;s shape without the batch axis, for example 3, 224, 224.</source>
        <translation>请输入单个样本的形状（不含批次轴），例如 3, 224, 224。</translation>
    </message>
    <message>
        <source>“%1” is not a size: each dimension is a whole number of at least 1 (for example 3, 224, 224).</source>
        <translation>“%1”不是有效尺寸：每一维都应是不小于 1 的整数（例如 3, 224, 224）。</translation>
    </message>
    <message>
        <source>A name has letters, digits, “_”, “.” and “-” only (at most 200).</source>
        <translation>名称只能包含字母、数字、“_”、“.”和“-”（最多 200 个字符）。</translation>
    </message>
    <message>
        <source>“%1” is reserved for the network&apos;s input.</source>
        <translation>“%1”保留给网络的输入使用。</translation>
    </message>
    <message>
        <source>Trained at %1 tokens (Strategy: Sequence length); the model&apos;s own input is %2.</source>
        <translation>按 %1 个 token 训练（策略：序列长度）；模型自身的输入为 %2。</translation>
    </message>
</context>
<context>
    <name>headroom::ui::RunController</name>
    <message>
        <source>Calibrate from %1</source>
        <translation>根据 %1 校准</translation>
    </message>
</context>
<context>
    <name>headroom::ui::SetupPanel</name>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>GPU:</source>
        <translation>GPU：</translation>
    </message>
    <message>
        <source>Optimizer:</source>
        <translation>优化器：</translation>
    </message>
    <message>
        <source>Precision:</source>
        <translation>精度：</translation>
    </message>
    <message>
        <source>Overhead:</source>
        <translation>框架开销：</translation>
    </message>
    <message>
        <source>GPU &amp;&amp; optimizer</source>
        <translation>GPU 和优化器</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Activation checkpointing, attention, sequence length, gradient accumulation, LoRA and QLoRA</source>
        <translation>激活检查点、注意力、序列长度、梯度累积、LoRA 和 QLoRA</translation>
    </message>
    <message>
        <source>Multi-GPU</source>
        <translation>多 GPU</translation>
    </message>
    <message>
        <source>8-bit state</source>
        <translation>8 位状态</translation>
    </message>
    <message>
        <source>bitsandbytes-style 8-bit optimizer state (block-wise quantised; tensors below 4096 elements stay 32-bit)</source>
        <translation>bitsandbytes 式 8 位优化器状态（按块量化；少于 4096 个元素的张量仍为 32 位）</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>The fraction of the GPU&apos;s peak FLOP rate a training step is assumed to reach (for the step time and throughput)</source>
        <translation>假定训练步能达到的 GPU 峰值算力比例（用于估算单步时间和吞吐量）</translation>
    </message>
    <message>
        <source>Utilisation:</source>
        <translation>利用率：</translation>
    </message>
    <message>
        <source>Activation checkpointing: per block keeps only each checkpointed block&apos;s input and recomputes the rest in backward (mark blocks in the layer editor; with none marked, every top-level Repeat block); selective recomputes only the attention score matrices</source>
        <translation>激活检查点：按块时只保留每个检查点块的输入，其余在反向传播时重新计算（在层编辑器中标记块；若未标记，则为所有顶层重复块）；选择性时只重新计算注意力分数矩阵</translation>
    </message>
    <message>
        <source>Flash / SDPA kernels keep no T × T matrix; eager attention keeps heads × T × T probabilities (and their dropout mask)</source>
        <translation>Flash / SDPA 内核不保留 T × T 矩阵；eager 注意力保留 heads × T × T 的概率（及其 dropout 掩码）</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个词元</translation>
    </message>
    <message>
        <source> steps</source>
        <translation> 步</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Gradient accumulation: each optimizer step sees micro-batch × steps samples per data-parallel GPU; memory follows the micro-batch</source>
        <translation>梯度累积：每个优化器步在每块数据并行 GPU 上处理 微批大小 × 步数 个样本；显存取决于微批次</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>LoRA rank r: targeted Linear layers are frozen and get trainable r × in and out × r adapters; every other parameter is frozen. 0 turns LoRA off</source>
        <translation>LoRA 秩 r：目标 Linear 层被冻结，并获得可训练的 r × in 和 out × r 适配器；其余参数全部冻结。0 表示关闭 LoRA</translation>
    </message>
    <message>
        <source>every Linear but the head</source>
        <translation>除输出头以外的所有 Linear</translation>
    </message>
    <message>
        <source>Linear layers to adapt, matched against the end of their names, separated by commas (q_proj, v_proj)</source>
        <translation>要适配的 Linear 层，按名称结尾匹配，以逗号分隔（q_proj, v_proj）</translation>
    </message>
    <message>
        <source>lora_dropout: above 0, each adapted layer keeps a dropped copy of its input</source>
        <translation>lora_dropout：大于 0 时，每个适配层会保留一份经过 dropout 的输入副本</translation>
    </message>
    <message>
        <source>QLoRA (4-bit base)</source>
        <translation>QLoRA（4 位基座权重）</translation>
    </message>
    <message>
        <source>QLoRA: the frozen base Linear weights stored as 4-bit NF4 with double-quantised constants; adapters in the half type</source>
        <translation>QLoRA：冻结的基础 Linear 权重以 4 位 NF4 存储，量化常数再做二次量化；适配器使用半精度类型</translation>
    </message>
    <message>
        <source>Checkpointing:</source>
        <translation>检查点：</translation>
    </message>
    <message>
        <source>Attention:</source>
        <translation>注意力：</translation>
    </message>
    <message>
        <source>Sequence length:</source>
        <translation>序列长度：</translation>
    </message>
    <message>
        <source>Accumulation:</source>
        <translation>梯度累积：</translation>
    </message>
    <message>
        <source>LoRA rank:</source>
        <translation>LoRA 秩：</translation>
    </message>
    <message>
        <source>Targets:</source>
        <translation>目标层：</translation>
    </message>
    <message>
        <source>LoRA dropout:</source>
        <translation>LoRA dropout：</translation>
    </message>
    <message>
        <source>How data parallelism shares the model state: DDP keeps everything on every GPU; ZeRO 1 shards optimizer state, 2 also gradients, 3 also weights (FSDP: shard-grad-op as ZeRO 2, full shard as ZeRO 3)</source>
        <translation>数据并行如何分担模型状态：DDP 在每块 GPU 上保留全部状态；ZeRO 1 分片优化器状态，2 还分片梯度，3 再分片权重（FSDP：shard-grad-op 相当于 ZeRO 2，full shard 相当于 ZeRO 3）</translation>
    </message>
    <message>
        <source>Megatron tensor-parallel degree for attention and MLP layers</source>
        <translation>注意力层和 MLP 层的 Megatron 张量并行度</translation>
    </message>
    <message>
        <source>Offload optimizer state to the CPU</source>
        <translation>将优化器状态卸载到 CPU</translation>
    </message>
    <message>
        <source>GPUs:</source>
        <translation>GPU 数量：</translation>
    </message>
    <message>
        <source>Sharding:</source>
        <translation>分片：</translation>
    </message>
    <message>
        <source>Tensor parallel:</source>
        <translation>张量并行：</translation>
    </message>
    <message>
        <source>Cannot use this set-up: %1</source>
        <translation>无法使用此训练配置：%1</translation>
    </message>
    <message>
        <source>Tokens per sample; the model&apos;s own is %1</source>
        <translation>每样本的 token 数；模型自身为 %1</translation>
    </message>
    <message>
        <source>Only for models whose input is a sequence (token ids [T] or features [T, E])</source>
        <translation>仅适用于输入为序列的模型（token id [T] 或特征 [T, E]）</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>不适用</translation>
    </message>
    <message>
        <source>Optimizer state (and FP32 master weights) kept in CPU memory (ZeRO-Offload); needs a ZeRO stage or FSDP sharding</source>
        <translation>优化器状态（及 FP32 主权重）保存在 CPU 内存中（ZeRO-Offload）；需要 ZeRO 某一阶段或 FSDP 分片</translation>
    </message>
    <message>
        <source> × even share</source>
        <translation> × 均分份额</translation>
    </message>
    <message>
        <source>Mixture of experts: the tokens the busiest expert of a layer receives, over an even share (1: balanced routing, the estimate&apos;s assumption). The experts keep the same activations for any routing; the busiest expert&apos;s backward buffers grow with this. At most experts ÷ experts per token, where one expert receives every token</source>
        <translation>混合专家：每层最忙的专家收到的 token 数与均分份额之比（1：均衡路由，即估算的假设）。无论如何路由，专家保留的激活值都相同；最忙专家的反向缓冲区随此值增长。最大为 专家数 ÷ 每 token 专家数，此时一个专家收到全部 token</translation>
    </message>
    <message>
        <source>MoE imbalance:</source>
        <translation>MoE 不均衡度：</translation>
    </message>
    <message>
        <source>How torch.optim runs the optimizer step, and the temporaries it holds then: foreach (the default on CUDA) lists as large as all the parameters, fused=True none, foreach=False (for-loop) those of one parameter at a time</source>
        <translation>torch.optim 如何执行优化器步，以及此时持有的临时张量：foreach（CUDA 上的默认方式）为与全部参数同样大的列表，fused=True 没有，foreach=False（for 循环）每次只有一个参数的</translation>
    </message>
    <message>
        <source>Implementation:</source>
        <translation>实现方式：</translation>
    </message>
    <message>
        <source>%1 has no fused implementation in torch.optim</source>
        <translation>%1 在 torch.optim 中没有 fused 实现</translation>
    </message>
    <message>
        <source>Memory outside PyTorch&apos;s caching allocator: the CUDA context (its default follows the GPU). 0 leaves all of the GPU&apos;s memory to the allocator.</source>
        <translation>PyTorch 缓存分配器之外的显存：CUDA 上下文（默认值随 GPU 而定）。设为 0 则把 GPU 的全部显存留给分配器。</translation>
    </message>
    <message>
        <source>No GPU matches “%1”, so the GPU stays %2. Type part of a name or an alias (“4090”, “A100 80GB”), or choose Custom... at the end of the list for your own.</source>
        <translation>没有与“%1”匹配的 GPU，因此 GPU 仍为 %2。请输入名称或别名的一部分（如“4090”、“A100 80GB”），或选择列表末尾的“自定义...”添加自己的 GPU。</translation>
    </message>
    <message>
        <source>Allocator:</source>
        <translation>分配器：</translation>
    </message>
    <message>
        <source>Expandable segments</source>
        <translation>可扩展段</translation>
    </message>
    <message>
        <source>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: PyTorch&apos;s caching allocator grows one segment by mapping pages rather than reserving new segments, which wastes less memory</source>
        <translation>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True：PyTorch 缓存分配器通过映射页面来扩展一个段，而不是预留新段，浪费的内存更少</translation>
    </message>
    <message>
        <source>Tokens per sample; the model&apos;s own is %1, and it takes up to %2</source>
        <translation>每样本的 token 数；模型自身为 %1，最长可达 %2</translation>
    </message>
    <message>
        <source>Data parallelism (DDP, ZeRO, FSDP), tensor, sequence, pipeline, context and expert parallelism, optimizer and activation offload</source>
        <translation>数据并行（DDP、ZeRO、FSDP），张量、序列、流水线、上下文和专家并行，优化器与激活卸载</translation>
    </message>
    <message>
        <source>GPUs in all (data × tensor × pipeline × context parallel); the chart shows one GPU&apos;s memory, with a pipeline the heaviest stage&apos;s</source>
        <translation>GPU 总数（数据 × 张量 × 流水线 × 上下文并行）；图表显示单个 GPU 的显存，有流水线时为最重阶段的 GPU</translation>
    </message>
    <message>
        <source>Pipeline stages:</source>
        <translation>流水线阶段：</translation>
    </message>
    <message>
        <source>Schedule:</source>
        <translation>调度：</translation>
    </message>
    <message>
        <source>Expert parallel:</source>
        <translation>专家并行：</translation>
    </message>
    <message>
        <source>Sequence parallel</source>
        <translation>序列并行</translation>
    </message>
    <message>
        <source>Sequence parallelism (Megatron-LM): the norms, dropouts and residual adds between the tensor-parallel regions run on 1/t of the sequence; needs tensor parallelism</source>
        <translation>序列并行（Megatron-LM）：张量并行区域之间的归一化、dropout 和残差相加只处理 1/t 的序列；需要张量并行</translation>
    </message>
    <message>
        <source>Pipeline-parallel stages: the model&apos;s layers cut into this many stages, one GPU each. The micro-batches of the pipeline are the accumulation steps (Strategy tab); the chart shows the heaviest stage&apos;s GPU</source>
        <translation>流水线并行阶段：模型的层被切成这么多个阶段，每个阶段一个 GPU。流水线的微批次就是梯度累积步数（“策略”页）；图表显示最重阶段的 GPU</translation>
    </message>
    <message>
        <source>How each stage orders its micro-batches (the accumulation steps): GPipe keeps every micro-batch&apos;s activations until the backward passes; 1F1B and zero bubble at most as many as there are stages after this one, plus one; interleaved 1F1B runs several model chunks per stage for a smaller bubble</source>
        <translation>每个阶段如何安排其微批次（即梯度累积步数）：GPipe 保留每个微批次的激活直到反向传播；1F1B 和零气泡最多保留其后阶段数加一个；交错 1F1B 每阶段运行多个模型块以减小气泡</translation>
    </message>
    <message>
        <source>even</source>
        <translation>均分</translation>
    </message>
    <message>
        <source>Layers per pipeline stage, first to last, separated by commas (7,9,9,7): the embedding goes with the first stage, the output head with the last. Empty: as even as possible</source>
        <translation>每个流水线阶段的层数，从第一个到最后一个，以逗号分隔（7,9,9,7）：嵌入层归第一阶段，输出头归最后一阶段。留空：尽量均分</translation>
    </message>
    <message>
        <source>Context parallelism: each sample&apos;s sequence split over this many GPUs</source>
        <translation>上下文并行：每个样本的序列分到这么多个 GPU 上</translation>
    </message>
    <message>
        <source>Expert parallelism: a mixture of experts&apos; experts split over this many GPUs</source>
        <translation>专家并行：混合专家模型的专家分到这么多个 GPU 上</translation>
    </message>
    <message>
        <source>Saved activations moved to CPU memory during the forward pass and brought back for the backward: the checkpointed blocks&apos; inputs, or every saved activation</source>
        <translation>前向传播时把保存的激活移到 CPU 内存，反向传播时取回：检查点块的输入，或所有保存的激活</translation>
    </message>
    <message>
        <source>“%1” is not a list of layer counts, so the layers per stage stay %2. Type whole numbers from 1 up separated by commas, one per stage (7,9,9,7), or nothing for an even split.</source>
        <translation>“%1”不是层数列表，因此每阶段层数保持为 %2。请输入以逗号分隔的从 1 起的整数，每个阶段一个（7,9,9,7），或留空以均分。</translation>
    </message>
    <message>
        <source>Layers/stage:</source>
        <translation>每阶段层数：</translation>
    </message>
    <message>
        <source>Context:</source>
        <translation>上下文：</translation>
    </message>
    <message>
        <source>Expert TP:</source>
        <translation>专家张量并行：</translation>
    </message>
    <message>
        <source>Activations:</source>
        <translation>激活：</translation>
    </message>
    <message>
        <source>On the GPU</source>
        <translation>留在 GPU 上</translation>
    </message>
    <message>
        <source>Checkpoints to the CPU</source>
        <translation>检查点移到 CPU</translation>
    </message>
    <message>
        <source>All to the CPU</source>
        <translation>全部移到 CPU</translation>
    </message>
    <message>
        <source> virtual</source>
        <translation> 虚拟</translation>
    </message>
    <message>
        <source>Virtual stages: model chunks per stage with the interleaved 1F1B schedule (Megatron-LM&apos;s virtual pipeline stages)</source>
        <translation>虚拟阶段：交错 1F1B 调度下每阶段的模型块数（Megatron-LM 的虚拟流水线阶段）</translation>
    </message>
    <message>
        <source>How context parallelism exchanges the sequence: ring attention passes key/value blocks around the ring; all-to-all (DeepSpeed-Ulysses) exchanges sequence shards for head shards</source>
        <translation>上下文并行如何交换序列：环形注意力沿环传递键/值块；all-to-all（DeepSpeed-Ulysses）把序列分片换成注意力头分片</translation>
    </message>
    <message>
        <source>Expert tensor parallelism: each expert&apos;s matrices split over this many GPUs</source>
        <translation>专家张量并行：每个专家的矩阵分到这么多个 GPU 上</translation>
    </message>
    <message>
        <source>GPUs per node: a group of GPUs within one node talks over the GPU&apos;s own link (NVLink, PCIe), one spanning nodes over the network. Changes the step time and the planner&apos;s ranking, not memory</source>
        <translation>每节点 GPU 数：同一节点内的一组 GPU 通过 GPU 自身的互连（NVLink、PCIe）通信，跨节点的一组通过网络通信。只影响单步时间和规划器的排序，不影响显存</translation>
    </message>
    <message>
        <source>GPUs per node:</source>
        <translation>每节点 GPU 数：</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source>The network&apos;s bandwidth between nodes per GPU, GB/s each way (50: one 400 Gb/s InfiniBand adapter per GPU). Changes the step time and the planner&apos;s ranking, not memory</source>
        <translation>节点间网络带宽，按每个 GPU 计，GB/s，单向（50：每个 GPU 一块 400 Gb/s InfiniBand 网卡）。只影响单步时间和规划器的排序，不影响显存</translation>
    </message>
    <message>
        <source>Between nodes:</source>
        <translation>节点间：</translation>
    </message>
</context>
<context>
    <name>headroom::ui::StepChartView</name>
    <message>
        <source>Steady step</source>
        <translation>稳定步</translation>
    </message>
    <message>
        <source>First step</source>
        <translation>第一步</translation>
    </message>
    <message>
        <source>A steady step holds the optimizer state throughout; the first step has none until its optimizer step creates it.</source>
        <translation>稳定步自始至终持有优化器状态；第一步在其优化器步创建之前没有优化器状态。</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>无估算</translation>
    </message>
    <message>
        <source>%1 per GPU</source>
        <translation>每 GPU %1</translation>
    </message>
    <message>
        <source>Memory (%1)</source>
        <translation>显存（%1）</translation>
    </message>
    <message>
        <source>The first training step at batch %1: no optimizer state until its optimizer step creates it.</source>
        <translation>批大小 %1 时的第一个训练步：在其优化器步创建之前没有优化器状态。</translation>
    </message>
    <message>
        <source>One training step at batch %1: what is alive while each layer runs forward, then backward, then the optimizer step.</source>
        <translation>批大小 %1 时的一个训练步：各层依次前向、再反向、最后优化器步运行时存在的内容。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Live: %1 of %2</source>
        <translation>存活：%1 / %2</translation>
    </message>
    <message>
        <source>Reserved by PyTorch (with the overhead): %1</source>
        <translation>PyTorch 预留（含开销）：%1</translation>
    </message>
    <message>
        <source>%1 shows no first step apart from its steady ones.</source>
        <translation>%1 中没有与稳定步分开的第一步。</translation>
    </message>
    <message>
        <source>No training step was found in %1: only its peak is compared (the Measured run tab).</source>
        <translation>在 %1 中未找到训练步：只比较其峰值（“测量的运行”标签页）。</translation>
    </message>
    <message>
        <source>Predicted allocated, peak %1</source>
        <translation>预测已分配，峰值 %1</translation>
    </message>
    <message>
        <source>Predicted reserved, peak %1</source>
        <translation>预测已保留，峰值 %1</translation>
    </message>
    <message>
        <source>Measured allocated, peak %1</source>
        <translation>测量已分配，峰值 %1</translation>
    </message>
    <message>
        <source>Measured reserved, peak %1</source>
        <translation>测量已保留，峰值 %1</translation>
    </message>
    <message>
        <source>Predicted peak %1 (%2)</source>
        <translation>预测峰值 %1（%2）</translation>
    </message>
    <message>
        <source>Measured peak %1 (%2)</source>
        <translation>测量峰值 %1（%2）</translation>
    </message>
    <message>
        <source>The first step of %1 (measured) beside the plan&apos;s first step at batch %2.</source>
        <translation>%1 的第一步（测量）与计划在批大小 %2 下的第一步并列。</translation>
    </message>
    <message>
        <source>A steady step of %1 (measured) beside the plan&apos;s at batch %2.</source>
        <translation>%1 的一个稳定步（测量）与计划在批大小 %2 下的稳定步并列。</translation>
    </message>
    <message>
        <source>Each phase spans the same width, its events spread evenly across it, so the phases line up.</source>
        <translation>每个阶段宽度相同，其中的事件均匀分布，因此各阶段对齐。</translation>
    </message>
    <message>
        <source>%1: %2, %3</source>
        <translation>%1：%2，%3</translation>
    </message>
    <message>
        <source>Measured allocated</source>
        <translation>测量已分配</translation>
    </message>
    <message>
        <source>Measured reserved</source>
        <translation>测量已保留</translation>
    </message>
    <message>
        <source>Predicted allocated</source>
        <translation>预测已分配</translation>
    </message>
    <message>
        <source>Predicted reserved</source>
        <translation>预测已保留</translation>
    </message>
    <message>
        <source>cuBLAS and cuDNN workspaces (allocated): %1</source>
        <translation>cuBLAS 和 cuDNN 工作区（已分配）：%1</translation>
    </message>
</context>
<context>
    <name>headroom::ui::UiText</name>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活</translation>
    </message>
    <message>
        <source>Input batch</source>
        <translation>输入批数据</translation>
    </message>
    <message>
        <source>Transient</source>
        <translation>临时张量</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>框架开销</translation>
    </message>
    <message>
        <source>Convolution</source>
        <translation>卷积</translation>
    </message>
    <message>
        <source>Linear</source>
        <translation>全连接</translation>
    </message>
    <message>
        <source>Normalization</source>
        <translation>归一化</translation>
    </message>
    <message>
        <source>Activation</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <source>Pooling</source>
        <translation>池化</translation>
    </message>
    <message>
        <source>Dropout</source>
        <translation>Dropout</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状变换</translation>
    </message>
    <message>
        <source>Recurrent</source>
        <translation>循环</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Embedding</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>Merge</source>
        <translation>合并</translation>
    </message>
    <message>
        <source>Structure</source>
        <translation>结构</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>Mixed precision (FP16 autocast)</source>
        <translation>混合精度（FP16 autocast）</translation>
    </message>
    <message>
        <source>Mixed precision (BF16 autocast)</source>
        <translation>混合精度（BF16 autocast）</translation>
    </message>
    <message>
        <source>Pure FP16 (FP32 master weights)</source>
        <translation>纯 FP16（FP32 主权重）</translation>
    </message>
    <message>
        <source>Pure BF16 (FP32 master weights)</source>
        <translation>纯 BF16（FP32 主权重）</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>SGD（动量）</translation>
    </message>
    <message>
        <source>SGD with Nesterov momentum</source>
        <translation>SGD（Nesterov 动量）</translation>
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
        <translation>Adam（AMSGrad）</translation>
    </message>
    <message>
        <source>RMSprop</source>
        <translation>RMSprop</translation>
    </message>
    <message>
        <source>RMSprop with momentum</source>
        <translation>RMSprop（动量）</translation>
    </message>
    <message>
        <source>RMSprop (centred, momentum)</source>
        <translation>RMSprop（中心化、动量）</translation>
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
        <translation>交叉熵</translation>
    </message>
    <message>
        <source>Mean squared error</source>
        <translation>均方误差</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation>通信缓冲区</translation>
    </message>
    <message>
        <source>Per block</source>
        <translation>按块</translation>
    </message>
    <message>
        <source>Selective (attention scores)</source>
        <translation>选择性（注意力分数）</translation>
    </message>
    <message>
        <source>Flash / SDPA</source>
        <translation>Flash / SDPA</translation>
    </message>
    <message>
        <source>Eager (keeps T × T)</source>
        <translation>Eager（保留 T × T）</translation>
    </message>
    <message>
        <source>DDP (no sharding)</source>
        <translation>DDP（不分片）</translation>
    </message>
    <message>
        <source>ZeRO stage 1</source>
        <translation>ZeRO 阶段 1</translation>
    </message>
    <message>
        <source>ZeRO stage 2</source>
        <translation>ZeRO 阶段 2</translation>
    </message>
    <message>
        <source>ZeRO stage 3</source>
        <translation>ZeRO 阶段 3</translation>
    </message>
    <message>
        <source>FSDP shard-grad-op</source>
        <translation>FSDP shard-grad-op</translation>
    </message>
    <message>
        <source>FSDP full shard</source>
        <translation>FSDP 完全分片</translation>
    </message>
    <message>
        <source>%1 %2FLOP</source>
        <translation>%1 %2FLOP</translation>
    </message>
    <message>
        <source>0 s</source>
        <translation>0 s</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1 µs</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation>%1 小时</translation>
    </message>
    <message>
        <source>Foreach (PyTorch default)</source>
        <translation>Foreach（PyTorch 默认）</translation>
    </message>
    <message>
        <source>Fused</source>
        <translation>Fused（融合）</translation>
    </message>
    <message>
        <source>For-loop</source>
        <translation>For 循环</translation>
    </message>
    <message>
        <source>Mean absolute error (L1)</source>
        <translation>平均绝对误差（L1）</translation>
    </message>
    <message>
        <source>Binary cross-entropy</source>
        <translation>二元交叉熵</translation>
    </message>
    <message>
        <source>Calibration (measured excess)</source>
        <translation>校准（实测超出部分）</translation>
    </message>
</context>
<context>
    <name>headroom::ui::WarningBanner</name>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>These numbers rest on an assumption you should check:</source>
        <translation>这些数值基于一项需要您核实的假设：</translation>
    </message>
    <message>
        <source>These numbers rest on %1 assumptions you should check:</source>
        <translation>这些数值基于 %1 项需要您核实的假设：</translation>
    </message>
    <message>
        <source>Show fewer</source>
        <translation>收起</translation>
    </message>
    <message>
        <source>Show all %1</source>
        <translation>显示全部 %1 项</translation>
    </message>
</context>
</TS>
