<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko">
<context>
    <name>headroom::report::LayerTablePainter</name>
    <message>
        <source>Layer</source>
        <translation>레이어</translation>
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
        <source>Activations
per sample</source>
        <translation>샘플당
활성화</translation>
    </message>
    <message>
        <source>FLOPs
per sample</source>
        <translation>샘플당
FLOPs</translation>
    </message>
    <message>
        <source>Layers (continued)</source>
        <translation>레이어 (계속)</translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation>오류: %1</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>합계</translation>
    </message>
</context>
<context>
    <name>headroom::report::MeasuredChartPainter</name>
    <message>
        <source>Before the steps</source>
        <translation>스텝 이전</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>순전파</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>역전파</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>옵티마이저 스텝</translation>
    </message>
    <message>
        <source>Predicted allocated</source>
        <translation>예측 할당</translation>
    </message>
    <message>
        <source>Predicted reserved</source>
        <translation>예측 예약</translation>
    </message>
    <message>
        <source>Measured allocated</source>
        <translation>측정 할당</translation>
    </message>
    <message>
        <source>Measured reserved</source>
        <translation>측정 예약</translation>
    </message>
    <message>
        <source>Predicted peak %1 (%2)</source>
        <translation>예측 최대치 %1 (%2)</translation>
    </message>
    <message>
        <source>Measured peak %1 (%2)</source>
        <translation>측정 최대치 %1 (%2)</translation>
    </message>
</context>
<context>
    <name>headroom::report::MemoryChartPainter</name>
    <message>
        <source>Batch %1: %2</source>
        <translation>배치 %1: %2</translation>
    </message>
    <message>
        <source>Max batch %1</source>
        <translation>최대 배치 %1</translation>
    </message>
    <message>
        <source>Micro-batch per GPU (log scale)</source>
        <translation>GPU당 마이크로배치(로그 눈금)</translation>
    </message>
    <message>
        <source>Batch size (log scale)</source>
        <translation>배치 크기(로그 눈금)</translation>
    </message>
    <message>
        <source>Batch %1: tensors %2</source>
        <translation>배치 %1: 텐서 %2</translation>
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
        <translation>LoRA 없음: 모든 가중치를 학습</translation>
    </message>
    <message>
        <source>QLoRA rank %1 (4-bit base weights)</source>
        <translation>QLoRA 랭크 %1 (4비트 기본 가중치)</translation>
    </message>
    <message>
        <source>LoRA rank %1</source>
        <translation>LoRA 랭크 %1</translation>
    </message>
    <message>
        <source>8-bit optimizer state</source>
        <translation>8비트 옵티마이저 상태</translation>
    </message>
    <message>
        <source>32-bit optimizer state</source>
        <translation>32비트 옵티마이저 상태</translation>
    </message>
    <message>
        <source>Optimizer step: %1</source>
        <translation>옵티마이저 스텝: %1</translation>
    </message>
    <message>
        <source>No checkpointing</source>
        <translation>체크포인팅 없음</translation>
    </message>
    <message>
        <source>Checkpointing: %1</source>
        <translation>체크포인팅: %1</translation>
    </message>
    <message>
        <source>No gradient accumulation</source>
        <translation>그래디언트 누적 없음</translation>
    </message>
    <message>
        <source>%1 accumulation steps (batch-norm statistics over micro-batches of %2)</source>
        <translation>누적 스텝 %1회 (배치 정규화 통계는 크기 %2의 마이크로 배치 기준)</translation>
    </message>
    <message>
        <source>%1 accumulation steps</source>
        <translation>누적 스텝 %1회</translation>
    </message>
    <message>
        <source>Tensor parallel × %1</source>
        <translation>텐서 병렬 × %1</translation>
    </message>
    <message>
        <source>Optimizer state in CPU memory</source>
        <translation>옵티마이저 상태를 CPU 메모리에 둠</translation>
    </message>
    <message>
        <source>Optimizer state on the GPU</source>
        <translation>옵티마이저 상태를 GPU에 둠</translation>
    </message>
    <message>
        <source>As set up</source>
        <translation>현재 설정 그대로</translation>
    </message>
    <message>
        <source>, </source>
        <translation>, </translation>
    </message>
    <message>
        <source>%1 GPUs</source>
        <translation>GPU %1대</translation>
    </message>
    <message>
        <source>it needs %1 more than the GPU holds, at a micro-batch of 1</source>
        <translation>마이크로 배치 1에서도 GPU 용량보다 %1 더 필요합니다</translation>
    </message>
    <message>
        <source>it reaches an effective batch %1 short of the target</source>
        <translation>유효 배치가 목표보다 %1 부족합니다</translation>
    </message>
    <message>
        <source>its optimizer step takes %1 longer than allowed</source>
        <translation>옵티마이저 스텝이 허용 시간보다 %1 더 걸립니다</translation>
    </message>
    <message>
        <source>this GPU has no figures to estimate its step time</source>
        <translation>이 GPU에는 스텝 시간을 추정할 성능 수치가 없습니다</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>달라짐</translation>
    </message>
    <message>
        <source>same</source>
        <translation>같음</translation>
    </message>
</context>
<context>
    <name>headroom::report::ReportCanvas</name>
    <message>
        <source>Page %1 of %2</source>
        <translation>%2쪽 중 %1쪽</translation>
    </message>
</context>
<context>
    <name>headroom::report::ReportComposer</name>
    <message>
        <source>Untitled model</source>
        <translation>제목 없는 모델</translation>
    </message>
    <message>
        <source>Generated %1 by Headroom %2, the GPU memory planner for deep-learning training</source>
        <translation>%1에 Headroom %2(딥러닝 학습용 GPU 메모리 계획 도구)로 생성</translation>
    </message>
    <message>
        <source>Set-up</source>
        <translation>학습 설정</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>모델</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>레이어 수</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>파라미터</translation>
    </message>
    <message>
        <source>%1 (%2 trainable)</source>
        <translation>%1 (학습 가능 %2)</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>입력</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1, %2</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>%1, %2 memory</source>
        <translation>%1, 메모리 %2</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>옵티마이저</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>정밀도</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>배치 크기</translation>
    </message>
    <message>
        <source>%1 per GPU (micro-batch); effective batch %2</source>
        <translation>GPU당 %1 (마이크로 배치), 유효 배치 %2</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>프레임워크 오버헤드</translation>
    </message>
    <message>
        <source>Fits on the %1</source>
        <translation>%1에 들어갑니다</translation>
    </message>
    <message>
        <source>Does not fit on the %1</source>
        <translation>%1에 들어가지 않습니다</translation>
    </message>
    <message>
        <source>headroom</source>
        <translation>여유</translation>
    </message>
    <message>
        <source>shortfall</source>
        <translation>부족</translation>
    </message>
    <message>
        <source> Not even batch 1 fits: it needs %1.</source>
        <translation> 배치 1도 들어가지 않습니다. %1이 필요합니다.</translation>
    </message>
    <message>
        <source> Not even batch 1 fits.</source>
        <translation> 배치 1도 들어가지 않습니다.</translation>
    </message>
    <message>
        <source> Max batch: %1 (the largest batch Headroom considers).</source>
        <translation> 최대 배치: %1 (Headroom이 고려하는 가장 큰 배치).</translation>
    </message>
    <message>
        <source> Max batch: %1 per GPU, an effective batch of %2.</source>
        <translation> 최대 배치: GPU당 %1, 유효 배치 %2.</translation>
    </message>
    <message>
        <source> Max batch: %1.</source>
        <translation> 최대 배치: %1.</translation>
    </message>
    <message>
        <source> Memory is per GPU, on each of %1 GPUs.</source>
        <translation> 메모리는 GPU 한 대 기준이며, GPU %1대 각각에 해당합니다.</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>요약</translation>
    </message>
    <message>
        <source>Component</source>
        <translation>구성 요소</translation>
    </message>
    <message>
        <source>At batch %1</source>
        <translation>배치 %1에서</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>비율</translation>
    </message>
    <message>
        <source>Per sample</source>
        <translation>샘플당</translation>
    </message>
    <message>
        <source>fixed</source>
        <translation>고정</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>합계</translation>
    </message>
    <message>
        <source>No throughput estimate: %1.</source>
        <translation>처리량 추정 없음: %1.</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>처리량</translation>
    </message>
    <message>
        <source>Throughput (estimated)</source>
        <translation>처리량 (추정)</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>스텝 시간</translation>
    </message>
    <message>
        <source>%1 per optimizer step (%2)</source>
        <translation>옵티마이저 스텝당 %1 (%2)</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>메모리 대역폭 제한</translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation>연산 제한</translation>
    </message>
    <message>
        <source>Samples per second</source>
        <translation>초당 샘플 수</translation>
    </message>
    <message>
        <source> across %1 GPUs</source>
        <translation> (GPU %1대 합계)</translation>
    </message>
    <message>
        <source>Tokens per second</source>
        <translation>초당 토큰 수</translation>
    </message>
    <message>
        <source>%1 (%2 tokens per sample)</source>
        <translation>%1 (샘플당 토큰 %2개)</translation>
    </message>
    <message>
        <source>%1 forward + %2 backward</source>
        <translation>순전파 %1 + 역전파 %2</translation>
    </message>
    <message>
        <source> + %1 recomputed</source>
        <translation> + 재계산 %1</translation>
    </message>
    <message>
        <source>FLOPs per sample</source>
        <translation>샘플당 FLOPs</translation>
    </message>
    <message>
        <source>Assumed utilisation</source>
        <translation>가정한 활용률</translation>
    </message>
    <message>
        <source>%1 of %2 TFLOP/s peak</source>
        <translation>최대 %2 TFLOP/s의 %1</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>추정 불가</translation>
    </message>
    <message>
        <source>Headroom cannot estimate this plan: %1.</source>
        <translation>Headroom이 이 계획을 추정할 수 없습니다: %1.</translation>
    </message>
    <message>
        <source> (at %1)</source>
        <translation> (위치: %1)</translation>
    </message>
    <message>
        <source> Fix the model and export the report again; the layer table below marks the layers concerned.</source>
        <translation> 모델을 고친 뒤 보고서를 다시 내보내세요. 아래 레이어 표에 관련 레이어가 표시되어 있습니다.</translation>
    </message>
    <message>
        <source>Memory versus batch size</source>
        <translation>배치 크기별 메모리</translation>
    </message>
    <message>
        <source>Layers (%1)</source>
        <translation>레이어 (%1개)</translation>
    </message>
    <message>
        <source>Activations per sample: the bytes autograd saves for backward that this layer keeps first, for one sample. Batch-independent saved bytes (such as per-channel statistics) are part of the estimate but not of this column. FLOPs per sample: forward plus backward (input and weight gradients) for one sample; checkpoint recomputation is in the throughput section.</source>
        <translation>샘플당 활성화: autograd가 역전파를 위해 저장하는 바이트 중 이 레이어가 처음 보관하는 양(샘플 1개 기준). 배치와 무관하게 저장되는 양(채널별 통계 등)은 추정에는 포함되지만 이 열에는 없습니다. 샘플당 FLOPs: 샘플 1개의 순전파와 역전파(입력 및 가중치 그래디언트) 연산량이며, 체크포인팅 재계산은 처리량 항목에 있습니다.</translation>
    </message>
    <message>
        <source>Activations.</source>
        <translation>활성화.</translation>
    </message>
    <message>
        <source>Peak memory.</source>
        <translation>최대 메모리.</translation>
    </message>
    <message>
        <source>%1 keeps no state.</source>
        <translation>%1은(는) 상태를 보관하지 않습니다.</translation>
    </message>
    <message>
        <source>%1 keeps one float32 state tensor the size of each trainable parameter.</source>
        <translation>%1은(는) 학습 가능한 각 파라미터와 같은 크기의 float32 상태 텐서를 하나 보관합니다.</translation>
    </message>
    <message>
        <source>%1 keeps %2 float32 state tensors the size of each trainable parameter.</source>
        <translation>%1은(는) 학습 가능한 각 파라미터와 같은 크기의 float32 상태 텐서를 %2개 보관합니다.</translation>
    </message>
    <message>
        <source> Pure half-precision training adds a float32 master copy of the weights.</source>
        <translation> 순수 반정밀도 학습은 가중치의 float32 마스터 사본을 추가합니다.</translation>
    </message>
    <message>
        <source> Under autocast, weights, gradients and optimizer state stay float32, and the half copies of weights autocast caches for the step count as weights.</source>
        <translation> autocast에서는 가중치, 그래디언트, 옵티마이저 상태가 float32로 유지되고, autocast가 스텝 동안 캐시하는 가중치의 반정밀도 사본은 가중치로 셉니다.</translation>
    </message>
    <message>
        <source>Optimizer and precision.</source>
        <translation>옵티마이저와 정밀도.</translation>
    </message>
    <message>
        <source>Overhead and GPU memory.</source>
        <translation>오버헤드와 GPU 메모리.</translation>
    </message>
    <message>
        <source>Gradient accumulation.</source>
        <translation>그래디언트 누적.</translation>
    </message>
    <message>
        <source>Each optimizer step runs %1 micro-batches of %2 samples; memory follows the micro-batch, and the gradients are kept between micro-batches.</source>
        <translation>옵티마이저 스텝마다 샘플 %2개짜리 마이크로 배치를 %1번 실행합니다. 메모리는 마이크로 배치를 따르며, 그래디언트는 마이크로 배치 사이에 유지됩니다.</translation>
    </message>
    <message>
        <source>DDP: every GPU holds all weights, gradients and optimizer state, plus the gradient buckets the all-reduce uses.</source>
        <translation>DDP: 모든 GPU가 가중치, 그래디언트, 옵티마이저 상태 전체와 all-reduce가 쓰는 그래디언트 버킷을 보관합니다.</translation>
    </message>
    <message>
        <source>ZeRO stage 1: each GPU keeps 1/N of the optimizer state.</source>
        <translation>ZeRO 1단계: 각 GPU가 옵티마이저 상태의 1/N을 보관합니다.</translation>
    </message>
    <message>
        <source>%1: each GPU keeps 1/N of the optimizer state and of the gradients.</source>
        <translation>%1: 각 GPU가 옵티마이저 상태와 그래디언트의 1/N을 보관합니다.</translation>
    </message>
    <message>
        <source>%1: each GPU keeps 1/N of the weights, the gradients and the optimizer state, and gathers each layer&apos;s full weights into communication buffers when it runs.</source>
        <translation>%1: 각 GPU가 가중치, 그래디언트, 옵티마이저 상태의 1/N을 보관하고, 각 레이어가 실행될 때 그 레이어의 전체 가중치를 통신 버퍼로 모읍니다.</translation>
    </message>
    <message>
        <source> Here N is 1 data-parallel GPU.</source>
        <translation> 여기서 N은 데이터 병렬 GPU 1대입니다.</translation>
    </message>
    <message>
        <source> Here N is %1 data-parallel GPUs.</source>
        <translation> 여기서 N은 데이터 병렬 GPU %1대입니다.</translation>
    </message>
    <message>
        <source> Tensor parallelism splits the attention and MLP layers&apos; weights and activations %1 ways.</source>
        <translation> 텐서 병렬은 어텐션 및 MLP 레이어의 가중치와 활성화를 %1개로 나눕니다.</translation>
    </message>
    <message>
        <source> The optimizer state (with any float32 master weights) lives in CPU memory and takes no GPU memory.</source>
        <translation> 옵티마이저 상태(float32 마스터 가중치 포함)는 CPU 메모리에 있어 GPU 메모리를 차지하지 않습니다.</translation>
    </message>
    <message>
        <source> Every figure is for one GPU; the chart&apos;s line is one GPU&apos;s memory.</source>
        <translation> 모든 수치는 GPU 한 대 기준이며, 차트의 선은 GPU 한 대의 메모리입니다.</translation>
    </message>
    <message>
        <source>Several GPUs.</source>
        <translation>여러 GPU.</translation>
    </message>
    <message>
        <source>8-bit optimizer.</source>
        <translation>8비트 옵티마이저.</translation>
    </message>
    <message>
        <source>Optimizer state is kept in 8 bits with block-wise scales (bitsandbytes); tensors below 4,096 elements stay 32-bit.</source>
        <translation>옵티마이저 상태는 블록별 스케일과 함께 8비트로 보관됩니다(bitsandbytes). 원소가 4,096개 미만인 텐서는 32비트로 남습니다.</translation>
    </message>
    <message>
        <source>Checkpointing.</source>
        <translation>체크포인팅.</translation>
    </message>
    <message>
        <source>Each checkpointed block keeps only its input; its activations are recomputed during backward, so one block&apos;s activations are alive at a time. The recomputation costs one more forward pass through those blocks.</source>
        <translation>체크포인트된 블록은 입력만 보관하고, 그 활성화는 역전파 중에 다시 계산되므로 한 번에 한 블록의 활성화만 메모리에 있습니다. 재계산에는 해당 블록의 순전파가 한 번 더 듭니다.</translation>
    </message>
    <message>
        <source>Selective recomputation keeps everything but the attention score matrices, which backward recomputes.</source>
        <translation>선택적 재계산은 어텐션 점수 행렬을 제외한 모든 것을 보관하며, 어텐션 점수 행렬은 역전파에서 다시 계산합니다.</translation>
    </message>
    <message>
        <source>LoRA.</source>
        <translation>LoRA.</translation>
    </message>
    <message>
        <source>Targeted Linear layers get trainable rank-%1 adapters; every other parameter is frozen, so only the adapters have gradients and optimizer state.%2</source>
        <translation>대상 Linear 레이어에 학습 가능한 랭크 %1 어댑터가 붙고, 나머지 파라미터는 모두 고정되므로 어댑터만 그래디언트와 옵티마이저 상태를 가집니다.%2</translation>
    </message>
    <message>
        <source> QLoRA stores the frozen base weights in 4-bit NF4 with double-quantised constants; the adapters are half precision.</source>
        <translation> QLoRA는 고정된 기본 가중치를 이중 양자화된 상수와 함께 4비트 NF4로 저장하며, 어댑터는 반정밀도입니다.</translation>
    </message>
    <message>
        <source>Throughput.</source>
        <translation>처리량.</translation>
    </message>
    <message>
        <source>A roofline estimate: the step&apos;s FLOPs at %1 of the GPU&apos;s peak for the precision, or the bytes it must move at the GPU&apos;s memory bandwidth, whichever takes longer. Real runs vary with kernels, data loading and communication.</source>
        <translation>루프라인 추정: 해당 정밀도에서 GPU 최대 성능의 %1로 스텝의 FLOPs를 처리하는 시간과, GPU 메모리 대역폭으로 스텝이 옮겨야 하는 바이트를 옮기는 시간 중 더 긴 쪽입니다. 실제 실행은 커널, 데이터 로딩, 통신에 따라 달라집니다.</translation>
    </message>
    <message>
        <source>Not modelled.</source>
        <translation>모델링하지 않은 것.</translation>
    </message>
    <message>
        <source>docs/memory-model.md in Headroom&apos;s documentation describes the memory model, its formulas and their sources. In short:</source>
        <translation>Headroom 문서의 docs/memory-model.md에 메모리 모델과 그 공식, 출처가 설명되어 있습니다. 요약하면:</translation>
    </message>
    <message>
        <source>Assumptions and method</source>
        <translation>가정과 방법</translation>
    </message>
    <message>
        <source>Memory plan for %1</source>
        <translation>%1 메모리 계획</translation>
    </message>
    <message>
        <source>The peak of one training step by component from batch %1 to %2, stacked. At batch %3 the peak holds %4 fixed plus %5 per sample.</source>
        <translation>배치 %1부터 %2까지 학습 스텝 한 번의 최대 메모리를 구성 요소별로 쌓은 그림. 배치 %3에서 최대 메모리는 고정 %4에 샘플당 %5입니다.</translation>
    </message>
    <message>
        <source>Implementation</source>
        <translation>구현 방식</translation>
    </message>
    <message>
        <source>During one step</source>
        <translation>한 스텝 동안</translation>
    </message>
    <message>
        <source>The tensors autograd saves for the backward pass, with PyTorch 2.x semantics on CUDA: each saved storage is counted once, at the layer that first keeps it, the loss&apos;s included. The input batch with its labels and the transient (the activation gradients alive at the peak, or the optimizer step&apos;s temporaries) are components of their own.</source>
        <translation>autograd가 역전파를 위해 저장하는 텐서로, CUDA에서의 PyTorch 2.x 의미를 따릅니다. 저장된 각 스토리지는 그것을 처음 보관하는 레이어에서 한 번만 세며, 손실 함수의 것도 포함합니다. 레이블을 포함한 입력 배치와 임시 텐서(최대 메모리 시점에 살아 있는 활성화 그래디언트, 또는 옵티마이저 스텝의 임시 텐서)는 별도의 구성 요소입니다.</translation>
    </message>
    <message>
        <source>Headroom simulates one training step as PyTorch 2.x runs it: the forward pass layer by layer (each output allocated, a tensor nothing keeps freed after its last use), the backward pass in reverse (activation gradients alive until their layer&apos;s backward has run, parameter gradients created when first reached, as zero_grad(set_to_none=True) leaves them, saved tensors freed once no backward needs them), then the optimizer step with the temporaries of its implementation (here %1, as torch.optim names it). The total is the highest point of that step, and the breakdown is what is alive then. The first step has no optimizer state until its optimizer step creates it. Every moment&apos;s memory is a fixed part plus a part per sample.</source>
        <translation>Headroom은 PyTorch 2.x가 실행하는 방식대로 학습 스텝 하나를 시뮬레이션합니다. 순전파를 레이어별로(출력마다 메모리를 할당하고, 아무도 보관하지 않는 텐서는 마지막 사용 후 해제), 역전파를 역순으로(활성화 그래디언트는 해당 레이어의 역전파가 끝날 때까지 유지, 파라미터 그래디언트는 zero_grad(set_to_none=True)가 남긴 상태대로 처음 도달할 때 생성, 저장된 텐서는 더 이상 필요로 하는 역전파가 없으면 해제), 그리고 구현 방식의 임시 텐서와 함께 옵티마이저 스텝을 실행합니다(여기서는 torch.optim의 이름으로 %1). 합계는 그 스텝의 최고점이고, 구성 요소는 그 시점에 살아 있는 것입니다. 첫 스텝에는 옵티마이저 스텝이 만들기 전까지 옵티마이저 상태가 없습니다. 각 시점의 메모리는 고정 부분에 샘플당 부분을 더한 것입니다.</translation>
    </message>
    <message>
        <source>Goal: an effective batch of %1</source>
        <translation>목표: 유효 배치 %1</translation>
    </message>
    <message>
        <source>Goal: the largest micro-batch that fits</source>
        <translation>목표: 들어가는 가장 큰 마이크로 배치</translation>
    </message>
    <message>
        <source>, optimizer steps of at most %1</source>
        <translation>, 옵티마이저 스텝 최대 %1</translation>
    </message>
    <message>
        <source>. Fastest first (estimated samples per second per GPU); ★ marks the Pareto front, where no other set-up is as fast with less memory; &quot;changed&quot;: the set-up computes something different from the one above.</source>
        <translation>. 빠른 순서 (GPU당 초당 추정 샘플 수); ★는 파레토 전선: 더 적은 메모리로 같은 속도를 내는 다른 설정이 없음; &quot;달라짐&quot;: 위의 설정과 다른 것을 계산하는 설정.</translation>
    </message>
    <message>
        <source>Set-ups that fit</source>
        <translation>들어가는 설정</translation>
    </message>
    <message>
        <source>Nothing fits.</source>
        <translation>들어가는 설정이 없습니다.</translation>
    </message>
    <message>
        <source>Nothing fits. Closest: %1 (%2), but %3.</source>
        <translation>들어가는 설정이 없습니다. 가장 가까운 설정: %1 (%2), 하지만 %3.</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>What changes</source>
        <translation>바뀌는 점</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>학습</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>메모리</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>최대 배치</translation>
    </message>
    <message>
        <source>Samples/s/GPU</source>
        <translation>샘플/초/GPU</translation>
    </message>
    <message>
        <source>Warning.</source>
        <translation>경고.</translation>
    </message>
    <message>
        <source>Warning (%1).</source>
        <translation>경고 (%1).</translation>
    </message>
    <message>
        <source> The max batch is the largest whose reserved peak fits in %1, keeping %2 spare for what the model cannot see exactly.</source>
        <translation> 최대 배치는 예약 최대치가 %1 안에 들어가는 가장 큰 배치이며, 모델이 정확히 볼 수 없는 부분을 위해 %2의 여유를 남깁니다.</translation>
    </message>
    <message>
        <source> Planned batch: the micro-batch (× accumulation steps × GPUs) each set-up runs to reach the goal, not the set-up&apos;s batch.</source>
        <translation> 계획 배치: 각 설정이 목표에 도달하기 위해 실행하는 마이크로 배치(× 누적 스텝 × GPU 수)이며, 현재 설정의 배치가 아닙니다.</translation>
    </message>
    <message>
        <source>Planned batch</source>
        <translation>계획 배치</translation>
    </message>
    <message>
        <source>The network is empty</source>
        <translation>네트워크가 비어 있습니다</translation>
    </message>
    <message>
        <source>It has no layers, so there is no training step to estimate. Add layers to see how much memory training it takes, then export the report again.</source>
        <translation>레이어가 없어 추정할 학습 스텝이 없습니다. 레이어를 추가하면 학습에 드는 메모리를 볼 수 있으니, 그다음 보고서를 다시 내보내세요.</translation>
    </message>
    <message>
        <source> With expandable_segments:True, one segment per pool grows by mapping pages instead.</source>
        <translation> expandable_segments:True에서는 풀마다 세그먼트 하나가 페이지를 매핑하며 커집니다.</translation>
    </message>
    <message>
        <source> Reserved by PyTorch&apos;s caching allocator: not simulated (%1). The max batch is from the tensors alone.</source>
        <translation> PyTorch 캐싱 할당자의 예약 메모리: 시뮬레이션하지 않음(%1). 최대 배치는 텐서만으로 계산합니다.</translation>
    </message>
    <message>
        <source>Framework overhead is the memory outside PyTorch&apos;s caching allocator, here %1: by default the CUDA context of the GPU (driver state and the kernel images of CUDA, cuBLAS and cuDNN), whose real size depends on the driver and the CUDA version.</source>
        <translation>프레임워크 오버헤드는 PyTorch 캐싱 할당자 밖의 메모리로, 여기서는 %1입니다. 기본값은 GPU의 CUDA 컨텍스트(드라이버 상태와 CUDA, cuBLAS, cuDNN의 커널 이미지)이며 실제 크기는 드라이버와 CUDA 버전에 따라 다릅니다.</translation>
    </message>
    <message>
        <source>The GPU&apos;s memory is as the vendor states it; the display, the driver and other processes may hold part of it.</source>
        <translation>GPU 메모리는 제조사가 밝힌 값이며, 디스플레이, 드라이버, 다른 프로세스가 그 일부를 쓸 수 있습니다.</translation>
    </message>
    <message>
        <source>The caching allocator&apos;s rounding, cached segments and fragmentation and the cuBLAS and cuDNN workspaces were not simulated for this plan (%1): the max batch is from the tensors alone.</source>
        <translation>이 계획에서는 캐싱 할당자의 올림, 캐시된 세그먼트와 단편화, cuBLAS와 cuDNN 작업 공간을 시뮬레이션하지 않았습니다(%1). 최대 배치는 텐서만으로 구한 값입니다.</translation>
    </message>
    <message>
        <source>The allocator&apos;s rounding, cached segments and fragmentation and the cuBLAS and cuDNN workspaces are in the reserved figure, from a replay of the step&apos;s allocations through the allocator&apos;s rules.</source>
        <translation>할당자의 올림, 캐시된 세그먼트와 단편화, cuBLAS와 cuDNN 작업 공간은 예약 수치에 들어 있으며, 이 수치는 스텝의 할당을 할당자 규칙대로 재생해 얻습니다.</translation>
    </message>
    <message>
        <source>Several CUDA streams, CUDA graphs, torch.compile&apos;s memory planning, NCCL&apos;s own buffers, and tensors the training loop keeps beyond the step (a logged loss, metrics, a batch prefetched by the data loader).</source>
        <translation>여러 CUDA 스트림, CUDA 그래프, torch.compile의 메모리 계획, NCCL 자체 버퍼, 그리고 학습 루프가 스텝 밖에서 유지하는 텐서(기록한 손실, 지표, 데이터 로더가 미리 가져온 배치).</translation>
    </message>
    <message>
        <source> PyTorch&apos;s caching allocator reserves %1 at its peak for %2 allocated (tensors %3, cuBLAS and cuDNN workspaces %4): it rounds every block, holds them in 2 MiB and 20 MiB segments and keeps freed blocks cached, and cuBLAS and cuDNN take workspaces from it (%5 for cuBLAS). With the %6 outside it (the CUDA context), the GPU holds %7.</source>
        <translation> PyTorch 캐싱 할당자는 최대치에서 할당된 %2(텐서 %3, cuBLAS와 cuDNN 작업 공간 %4)를 위해 %1을 예약합니다. 모든 블록을 올림하고, 2 MiB와 20 MiB 세그먼트에 담으며, 해제된 블록을 캐시에 남겨 두고, cuBLAS와 cuDNN이 할당자에서 작업 공간을 가져갑니다(cuBLAS %5). 할당자 밖의 %6(CUDA 컨텍스트)를 더하면 GPU는 %7을 사용합니다.</translation>
    </message>
    <message>
        <source>Batch %1: the GPU would hold %2 of %3 at the peak, leaving %4, less than the margin of %5 the max batch keeps for what the model cannot see exactly.</source>
        <translation>배치 %1: 최대치에서 GPU는 %3 중 %2를 사용해 %4가 남지만, 이는 최대 배치가 모델이 정확히 볼 수 없는 부분을 위해 남겨 두는 여유분 %5보다 작습니다.</translation>
    </message>
    <message>
        <source>Batch %1: the GPU holds %2 of %3 at the peak (PyTorch&apos;s reserved memory and the overhead): %4 %5. The tensors alone peak at %6.</source>
        <translation>배치 %1: 최대치에서 GPU는 %3 중 %2를 사용합니다(PyTorch 예약 메모리와 오버헤드). %4 %5. 텐서만의 최대치는 %6입니다.</translation>
    </message>
    <message>
        <source>Batch %1&apos;s tensors need %2 of %3: %4 %5.</source>
        <translation>배치 %1의 텐서에는 %3 중 %2가 필요합니다. %4 %5.</translation>
    </message>
    <message>
        <source>At batch %1 the step&apos;s tensors peak at %2, the first step&apos;s at %3.</source>
        <translation>배치 %1에서 스텝의 텐서 최대치는 %2, 첫 스텝은 %3입니다.</translation>
    </message>
    <message>
        <source>The plan beside the run recorded in %1 (%2): compared at batch %3%4, %5%6.</source>
        <translation>%1(%2)에 기록된 실행과 계획의 비교: 배치 %3%4, %5%6 기준.</translation>
    </message>
    <message>
        <source> (the plan&apos;s: the run&apos;s batch was not given)</source>
        <translation> (계획의 값: 실행의 배치가 주어지지 않음)</translation>
    </message>
    <message>
        <source> (the plan&apos;s: the run&apos;s precision was not given)</source>
        <translation> (계획의 값: 실행의 정밀도가 주어지지 않음)</translation>
    </message>
    <message>
        <source>Peak allocated: predicted %1, measured %2, %3. Peak reserved: predicted %4, measured %5, %6. Differences are measured minus predicted.</source>
        <translation>최대 할당: 예측 %1, 측정 %2, %3. 최대 예약: 예측 %4, 측정 %5, %6. 차이는 측정값에서 예측값을 뺀 값입니다.</translation>
    </message>
    <message>
        <source>Plan and measured run</source>
        <translation>계획과 측정된 실행</translation>
    </message>
    <message>
        <source>The first step (it creates the optimizer state)</source>
        <translation>첫 스텝 (옵티마이저 상태를 만듦)</translation>
    </message>
    <message>
        <source>A steady step</source>
        <translation>정상 상태의 스텝</translation>
    </message>
    <message>
        <source>Memory over the step&apos;s phases, each phase as wide as the other whatever its length: the plan&apos;s replay at batch %1 and the run&apos;s step %2. Solid: allocated; dashed: reserved.</source>
        <translation>스텝의 단계별 메모리(각 단계는 길이와 관계없이 같은 너비): 배치 %1에서의 계획 재생과 실행의 스텝 %2. 실선: 할당, 점선: 예약.</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>찾지 못함</translation>
    </message>
    <message>
        <source>Per phase</source>
        <translation>단계별</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>단계</translation>
    </message>
    <message>
        <source>Allocated, predicted</source>
        <translation>할당, 예측</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>측정</translation>
    </message>
    <message>
        <source>difference</source>
        <translation>차이</translation>
    </message>
    <message>
        <source>Reserved, predicted</source>
        <translation>예약, 예측</translation>
    </message>
    <message>
        <source>Per component, alive at the allocated peak</source>
        <translation>구성 요소별 (할당 최대치 시점에 살아 있는 것)</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>예측</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>측정</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>차이</translation>
    </message>
    <message>
        <source>and %1 more blocks</source>
        <translation>그 밖의 블록 %1개</translation>
    </message>
    <message>
        <source>Not attributed to the plan (largest first)</source>
        <translation>계획에 대응하지 않는 블록 (큰 순서)</translation>
    </message>
    <message>
        <source>Set-up differences</source>
        <translation>설정 차이</translation>
    </message>
    <message>
        <source>Fixed %1 and %2 per sample (from the run&apos;s batch %3), applied with --calibration-fixed and --calibration-per-sample or the GUI&apos;s calibration. %4</source>
        <translation>고정 %1, 샘플당 %2 (실행의 배치 %3에서 구함). --calibration-fixed와 --calibration-per-sample 또는 GUI의 보정으로 적용합니다. %4</translation>
    </message>
    <message>
        <source>None: %1</source>
        <translation>없음: %1</translation>
    </message>
    <message>
        <source>Calibration proposal</source>
        <translation>보정 제안</translation>
    </message>
    <message>
        <source>What could not be compared</source>
        <translation>비교할 수 없었던 것</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1 stages, %2, %3 micro-batches (the accumulation steps), bubble %4 of the step. Each stage&apos;s GPU holds its layers and the micro-batches its schedule keeps in flight; the heaviest (in bold) is the plan&apos;s answer: the summary, the charts and the max batch are its.</source>
        <translation>%1개 스테이지, %2, 마이크로배치 %3개(누적 단계 수), 버블은 스텝의 %4. 각 스테이지의 GPU는 자기 레이어와 스케줄이 진행 중으로 유지하는 마이크로배치를 담습니다. 가장 무거운 스테이지(굵게)가 계획의 답이며, 요약, 차트와 최대 배치는 그 스테이지의 것입니다.</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>파이프라인 스테이지</translation>
    </message>
    <message>
        <source>Stage %1: %2</source>
        <translation>스테이지 %1: %2</translation>
    </message>
    <message>
        <source> Memory is per GPU: a GPU of the heaviest pipeline stage, of %1 GPUs in all.</source>
        <translation> 메모리는 GPU당 값입니다: 가장 무거운 파이프라인 스테이지의 GPU 하나이며, 전체 GPU는 %1개입니다.</translation>
    </message>
    <message>
        <source>%1. Searched: %2. The layouts whose heaviest GPU fits with what PyTorch&apos;s caching allocator reserves, fastest first by the throughput model (with the pipeline bubble).</source>
        <translation>%1. 탐색: %2. 가장 무거운 GPU가 PyTorch 캐싱 할당자가 예약하는 메모리까지 포함해 들어가는 레이아웃을 처리량 모델(파이프라인 버블 포함) 기준 빠른 순으로 나열합니다.</translation>
    </message>
    <message>
        <source>Cluster layouts</source>
        <translation>클러스터 레이아웃</translation>
    </message>
    <message>
        <source>Nothing fits: %1.</source>
        <translation>들어가는 레이아웃 없음: %1.</translation>
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
        <translation>스케줄</translation>
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
        <translation>샤딩</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>재계산</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>배치</translation>
    </message>
    <message>
        <source>Tensors</source>
        <translation>텐서</translation>
    </message>
    <message>
        <source>Reserved</source>
        <translation>예약</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>스텝 시간</translation>
    </message>
    <message>
        <source>Bubble</source>
        <translation>버블</translation>
    </message>
    <message>
        <source>Tokens/s/GPU</source>
        <translation>토큰/초/GPU</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>샘플/초</translation>
    </message>
    <message>
        <source>TP tensor (with sequence) parallel, PP pipeline stages, CP context parallel, EP expert parallel, DP data parallel; Batch the micro-batch × micro-batches per step on each data-parallel rank; Tensors the heaviest pipeline stage&apos;s GPU&apos;s peak by the tensors, Reserved what PyTorch&apos;s caching allocator reserves there at its peak plus the overhead; Step the slowest stage&apos;s step with the pipeline bubble (no communication timed).</source>
        <translation>TP 텐서(시퀀스 포함) 병렬, PP 파이프라인 스테이지, CP 컨텍스트 병렬, EP 전문가 병렬, DP 데이터 병렬; 배치는 데이터 병렬 rank마다 마이크로 배치 × 스텝당 마이크로 배치 수; 텐서는 가장 무거운 파이프라인 스테이지 GPU의 텐서 기준 피크, 예약은 그 피크에서 PyTorch 캐싱 할당자가 예약하는 메모리와 오버헤드; 스텝 시간은 가장 느린 스테이지의 파이프라인 버블을 포함한 스텝(통신 시간 제외).</translation>
    </message>
    <message>
        <source>Left out: %1</source>
        <translation>제외: %1</translation>
    </message>
</context>
<context>
    <name>headroom::report::StepChart</name>
    <message>
        <source>End of the forward pass, after layer %1</source>
        <translation>순전파 끝, 레이어 %1 다음</translation>
    </message>
    <message>
        <source>Forward pass, layer %1</source>
        <translation>순전파, 레이어 %1</translation>
    </message>
    <message>
        <source>Backward pass, recomputing layer %1 (checkpointing)</source>
        <translation>역전파, 레이어 %1 다시 계산 중 (체크포인팅)</translation>
    </message>
    <message>
        <source>Backward pass, layer %1</source>
        <translation>역전파, 레이어 %1</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>옵티마이저 스텝</translation>
    </message>
    <message>
        <source>Peak %1 · %2</source>
        <translation>최대 %1 · %2</translation>
    </message>
    <message>
        <source>at the end of the forward pass, after layer %1</source>
        <translation>순전파가 끝날 때, 레이어 %1 다음</translation>
    </message>
    <message>
        <source>in the forward pass, at layer %1</source>
        <translation>순전파 중 레이어 %1에서</translation>
    </message>
    <message>
        <source>in the backward pass, while checkpointing recomputes layer %1</source>
        <translation>역전파 중 체크포인팅이 레이어 %1을(를) 다시 계산할 때</translation>
    </message>
    <message>
        <source>in the backward pass, at layer %1</source>
        <translation>역전파 중 레이어 %1에서</translation>
    </message>
    <message>
        <source>in the optimizer step</source>
        <translation>옵티마이저 스텝에서</translation>
    </message>
    <message>
        <source>The first training step at batch %1 (no optimizer state before its optimizer step): %2 at its peak, %3.</source>
        <translation>배치 %1에서 첫 학습 스텝(옵티마이저 스텝 전에는 옵티마이저 상태 없음): 최대 %2, %3.</translation>
    </message>
    <message>
        <source>One training step at batch %1: %2 at its peak, %3.</source>
        <translation>배치 %1에서 학습 스텝 하나: 최대 %2, %3.</translation>
    </message>
    <message>
        <source>The last of %1 micro-batches: the accumulated gradients are alive.</source>
        <translation>마이크로 배치 %1개 중 마지막: 누적된 그래디언트가 살아 있습니다.</translation>
    </message>
    <message>
        <source>The line: what PyTorch&apos;s caching allocator holds reserved, plus the overhead, %1 at most; it stays above the tensors, as the allocator rounds blocks, keeps freed ones cached and grows in whole segments.</source>
        <translation>선: PyTorch 캐싱 할당자가 예약한 메모리에 오버헤드를 더한 값으로, 최대 %1입니다. 할당자가 블록을 올림하고, 해제된 블록을 캐시에 남기며, 세그먼트 단위로 늘어나므로 텐서보다 항상 위에 있습니다.</translation>
    </message>
    <message>
        <source>The solid line adds to the stack the cuBLAS and cuDNN workspaces PyTorch allocates through its cache, up to %1: torch.cuda.max_memory_allocated() counts them.</source>
        <translation>실선은 PyTorch가 캐시를 통해 할당하는 cuBLAS와 cuDNN 작업 공간(최대 %1)을 스택에 더한 것입니다. torch.cuda.max_memory_allocated()는 이를 셉니다.</translation>
    </message>
</context>
<context>
    <name>headroom::report::chartparts</name>
    <message>
        <source>Reserved (PyTorch&apos;s cache + overhead)</source>
        <translation>예약(PyTorch 캐시 + 오버헤드)</translation>
    </message>
    <message>
        <source>Allocated + workspaces</source>
        <translation>할당 + 작업 공간</translation>
    </message>
</context>
<context>
    <name>headroom::report::plantext</name>
    <message>
        <source>Sequence length</source>
        <translation>시퀀스 길이</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>토큰 %1개</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>그래디언트 누적</translation>
    </message>
    <message>
        <source>%1 micro-batches per optimizer step</source>
        <translation>옵티마이저 스텝당 마이크로 배치 %1개</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 수</translation>
    </message>
    <message>
        <source>Offload</source>
        <translation>오프로드</translation>
    </message>
    <message>
        <source>optimizer state in CPU memory</source>
        <translation>옵티마이저 상태를 CPU 메모리에 보관</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>옵티마이저 상태</translation>
    </message>
    <message>
        <source>8-bit (block-wise quantised)</source>
        <translation>8비트 (블록별 양자화)</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>체크포인팅</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>어텐션</translation>
    </message>
    <message>
        <source>every Linear layer but the output head</source>
        <translation>출력 헤드를 제외한 모든 Linear 레이어</translation>
    </message>
    <message>
        <source>QLoRA rank %1 on %2</source>
        <translation>QLoRA 랭크 %1, 대상 %2</translation>
    </message>
    <message>
        <source>LoRA rank %1 on %2</source>
        <translation>LoRA 랭크 %1, 대상 %2</translation>
    </message>
    <message>
        <source>, dropout %1</source>
        <translation>, dropout %1</translation>
    </message>
    <message>
        <source>; base weights 4-bit NF4</source>
        <translation>; 기본 가중치 4비트 NF4</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation>활용률</translation>
    </message>
    <message>
        <source>%1 of peak assumed</source>
        <translation>최대 성능의 %1 가정</translation>
    </message>
    <message>
        <source>Checkpointing (%1) adds %2 of activations at batch %3 (+%4): checkpointing these layers costs memory, and +%5 forward compute</source>
        <translation>체크포인팅(%1)은 배치 %3에서 활성화를 %2 늘립니다(+%4). 이 레이어들을 체크포인트하면 메모리가 더 들고, 순전파 연산도 +%5 늘어납니다</translation>
    </message>
    <message>
        <source>Checkpointing (%1) saves %2 of activations at batch %3 (%4) for +%5 forward compute</source>
        <translation>체크포인팅(%1)은 배치 %3에서 활성화를 %2 절약합니다(%4). 대가는 순전파 연산 +%5입니다</translation>
    </message>
    <message>
        <source>LoRA adds %1 adapter parameters: %2 of %3 parameters train (%4)</source>
        <translation>LoRA가 어댑터 파라미터 %1개를 추가합니다. 파라미터 %3개 중 %2개를 학습합니다(%4)</translation>
    </message>
    <message>
        <source>1 step</source>
        <translation>1스텝</translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation>%1스텝</translation>
    </message>
    <message>
        <source>1 replica</source>
        <translation>복제본 1개</translation>
    </message>
    <message>
        <source>%1 replicas</source>
        <translation>복제본 %1개</translation>
    </message>
    <message>
        <source>1 GPU</source>
        <translation>GPU 1대</translation>
    </message>
    <message>
        <source>%1 GPUs</source>
        <translation>GPU %1대</translation>
    </message>
    <message>
        <source>%1 = %2 x %3 x %4</source>
        <translation>%1 = %2 × %3 × %4</translation>
    </message>
    <message>
        <source>The peak is the optimizer step: weights, gradients and optimizer state with the step&apos;s own temporaries, after the activations are freed</source>
        <translation>최대 메모리는 옵티마이저 스텝에서 나옵니다. 활성화가 해제된 뒤의 가중치, 그래디언트, 옵티마이저 상태와 스텝 자체의 임시 텐서입니다</translation>
    </message>
    <message>
        <source>The peak is in the backward pass, while checkpointing recomputes layer %1</source>
        <translation>최대 메모리는 역전파 중, 체크포인팅이 레이어 %1을(를) 다시 계산할 때 나옵니다</translation>
    </message>
    <message>
        <source>The peak is in the backward pass, at layer %1</source>
        <translation>최대 메모리는 역전파 중 레이어 %1에서 나옵니다</translation>
    </message>
    <message>
        <source>The peak is in the forward pass, at layer %1</source>
        <translation>최대 메모리는 순전파 중 레이어 %1에서 나옵니다</translation>
    </message>
    <message>
        <source>%1, in a micro-batch after the first (the accumulated gradients are alive)</source>
        <translation>%1. 첫 번째 이후의 마이크로 배치에서입니다(누적된 그래디언트가 살아 있음)</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>보정</translation>
    </message>
    <message>
        <source>%1 fixed + %2 per sample</source>
        <translation>고정 %1 + 샘플당 %2</translation>
    </message>
    <message>
        <source>measured at batch %1 in %2</source>
        <translation>%2에서 배치 %1로 측정</translation>
    </message>
    <message>
        <source>measured at batch %1</source>
        <translation>배치 %1로 측정</translation>
    </message>
    <message>
        <source>measured in %1</source>
        <translation>%1에서 측정</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>스테이지</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>레이어</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>파라미터</translation>
    </message>
    <message>
        <source>In flight</source>
        <translation>진행 중</translation>
    </message>
    <message>
        <source>Peak (tensors)</source>
        <translation>피크(텐서)</translation>
    </message>
    <message>
        <source>Held at peak</source>
        <translation>피크 시 점유</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>최대 배치</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>적합</translation>
    </message>
    <message>
        <source>Stage %1 of %2 (heaviest)</source>
        <translation>스테이지 %1/%2(가장 무거움)</translation>
    </message>
    <message>
        <source>%1 tensor-parallel</source>
        <translation>텐서 병렬 %1</translation>
    </message>
    <message>
        <source>%1 pipeline-parallel</source>
        <translation>파이프라인 병렬 %1</translation>
    </message>
    <message>
        <source>%1 context-parallel</source>
        <translation>컨텍스트 병렬 %1</translation>
    </message>
    <message>
        <source>%1 data-parallel</source>
        <translation>데이터 병렬 %1</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1, %2</translation>
    </message>
    <message>
        <source>%1 (%2 virtual stages)</source>
        <translation>%1(가상 스테이지 %2개)</translation>
    </message>
    <message>
        <source>1 micro-batch</source>
        <translation>마이크로배치 1개</translation>
    </message>
    <message>
        <source>%1 micro-batches</source>
        <translation>마이크로배치 %1개</translation>
    </message>
    <message>
        <source>%1, layers per stage %2</source>
        <translation>%1, 스테이지당 레이어 %2</translation>
    </message>
    <message>
        <source>Sequence parallel</source>
        <translation>시퀀스 병렬</translation>
    </message>
    <message>
        <source>Context parallel</source>
        <translation>컨텍스트 병렬</translation>
    </message>
    <message>
        <source>%1 ranks, %2</source>
        <translation>랭크 %1개, %2</translation>
    </message>
    <message>
        <source>%1 expert-parallel</source>
        <translation>전문가 병렬 %1</translation>
    </message>
    <message>
        <source>%1 x %2 expert-tensor-parallel</source>
        <translation>%1 x 전문가 텐서 병렬 %2</translation>
    </message>
    <message>
        <source>Experts</source>
        <translation>전문가</translation>
    </message>
    <message>
        <source>Activation offload</source>
        <translation>활성값 오프로드</translation>
    </message>
    <message>
        <source>%1 in CPU memory</source>
        <translation>%1을(를) CPU 메모리에</translation>
    </message>
    <message>
        <source>%1 (heaviest)</source>
        <translation>%1(가장 무거움)</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>예</translation>
    </message>
    <message>
        <source>no</source>
        <translation>아니요</translation>
    </message>
    <message>
        <source>norms and dropouts split over the %1 tensor-parallel ranks</source>
        <translation>정규화와 드롭아웃을 텐서 병렬 랭크 %1개에 분할</translation>
    </message>
    <message>
        <source>interleaved ×%1</source>
        <translation>인터리브 ×%1</translation>
    </message>
    <message>
        <source>zero bubble</source>
        <translation>제로 버블</translation>
    </message>
    <message>
        <source>%1 + offload</source>
        <translation>%1 + 오프로드</translation>
    </message>
    <message>
        <source>Selective</source>
        <translation>선택적</translation>
    </message>
    <message>
        <source>Per block</source>
        <translation>블록 단위</translation>
    </message>
    <message>
        <source>None</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%2 중 %1</translation>
    </message>
    <message>
        <source>%1 × %2 (%3), %4 per node, global batch %5 (micro-batch × accumulation steps × data parallel)</source>
        <translation>%1 × %2 (%3), 노드당 %4개, 전역 배치 %5 (마이크로 배치 × 누적 스텝 × 데이터 병렬)</translation>
    </message>
    <message>
        <source>%1, %2 worked out (%3, %4, %5)</source>
        <translation>%1, %2개 계산 (%3, %4, %5)</translation>
    </message>
    <message>
        <source>%1 layout</source>
        <translation>레이아웃 %1개</translation>
    </message>
    <message>
        <source>%1 layouts</source>
        <translation>레이아웃 %1개</translation>
    </message>
    <message>
        <source>%1 analysis</source>
        <translation>분석 %1회</translation>
    </message>
    <message>
        <source>%1 analyses</source>
        <translation>분석 %1회</translation>
    </message>
    <message>
        <source>%1 step model</source>
        <translation>스텝 모델 %1개</translation>
    </message>
    <message>
        <source>%1 step models</source>
        <translation>스텝 모델 %1개</translation>
    </message>
    <message>
        <source>%1 allocator replay</source>
        <translation>할당자 재실행 %1회</translation>
    </message>
    <message>
        <source>%1 allocator replays</source>
        <translation>할당자 재실행 %1회</translation>
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
        <translation>%1 이상의 정수</translation>
    </message>
    <message>
        <source>whole numbers from %1 to %2</source>
        <translation>%1부터 %2까지의 정수</translation>
    </message>
    <message>
        <source>%1, or %2</source>
        <translation>%1 또는 %2</translation>
    </message>
    <message>
        <source>numbers above %1, up to %2</source>
        <translation>%1 초과 %2 이하의 수</translation>
    </message>
    <message>
        <source>numbers from %1 to %2</source>
        <translation>%1부터 %2까지의 수</translation>
    </message>
    <message>
        <source>numbers above %1</source>
        <translation>%1 초과의 수</translation>
    </message>
    <message>
        <source>numbers from %1 up</source>
        <translation>%1 이상의 수</translation>
    </message>
    <message>
        <source>numbers up to %1</source>
        <translation>%1 이하의 수</translation>
    </message>
    <message>
        <source>any number</source>
        <translation>임의의 수</translation>
    </message>
    <message>
        <source>on or off</source>
        <translation>켜기 또는 끄기</translation>
    </message>
    <message>
        <source>one of %1</source>
        <translation>%1 중 하나</translation>
    </message>
    <message>
        <source>Allowed: %1.</source>
        <translation>허용 값: %1.</translation>
    </message>
    <message>
        <source>Leave %1 out of the model file: Headroom uses %2</source>
        <translation>모델 파일에서 %1을(를) 생략합니다 (Headroom이 쓰는 값: %2)</translation>
    </message>
    <message>
        <source>%1 needs at least one size.</source>
        <translation>%1에는 크기가 하나 이상 필요합니다.</translation>
    </message>
    <message>
        <source>“%1” is not allowed: %2 takes %3, separated by commas.</source>
        <translation>“%1”은(는) 허용되지 않습니다. %2의 허용 값: 쉼표로 구분한 %3.</translation>
    </message>
    <message>
        <source>any text up to %1 characters</source>
        <translation>최대 %1자의 임의 텍스트</translation>
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
        <source>%1 steps</source>
        <translation>%1스텝</translation>
    </message>
    <message>
        <source>%1 GPUs</source>
        <translation>GPU %1대</translation>
    </message>
    <message>
        <source>Effective batch: %1 (%2); at most %3</source>
        <translation>유효 배치: %1 (%2), 최대 %3</translation>
    </message>
    <message>
        <source>Samples per optimizer step: micro-batch × accumulation steps × data-parallel GPUs</source>
        <translation>옵티마이저 스텝당 샘플 수: 마이크로 배치 × 누적 스텝 × 데이터 병렬 GPU 수</translation>
    </message>
    <message>
        <source>Max micro-batch per GPU: —</source>
        <translation>GPU당 최대 마이크로 배치: —</translation>
    </message>
    <message>
        <source>Per GPU: —</source>
        <translation>GPU당: —</translation>
    </message>
    <message>
        <source>Step: %1 · %2 samples/s</source>
        <translation>스텝: %1 · 초당 샘플 %2</translation>
    </message>
    <message>
        <source> · %1 tokens/s</source>
        <translation> · 초당 토큰 %1</translation>
    </message>
    <message>
        <source>, memory-bound</source>
        <translation>, 메모리 대역폭 제한</translation>
    </message>
    <message>
        <source>Per optimizer step and GPU: %1 (forward %2, backward %3, recomputation %4 per sample); compute %5, memory traffic %6</source>
        <translation>옵티마이저 스텝 및 GPU당: %1 (샘플당 순전파 %2, 역전파 %3, 재계산 %4), 연산 %5, 메모리 전송 %6</translation>
    </message>
    <message>
        <source>Throughput: — (%1)</source>
        <translation>처리량: — (%1)</translation>
    </message>
    <message>
        <source>; LoRA adapters: %1</source>
        <translation>; LoRA 어댑터: %1</translation>
    </message>
    <message>
        <source>The network is empty</source>
        <translation>네트워크가 비어 있습니다</translation>
    </message>
    <message>
        <source>Add layers to see how much memory training it takes.</source>
        <translation>레이어를 추가하면 학습에 드는 메모리를 볼 수 있습니다.</translation>
    </message>
    <message>
        <source>no saving</source>
        <translation>절약 없음</translation>
    </message>
    <message>
        <source>From the reserved peak: the largest batch whose first two steps PyTorch&apos;s caching allocator can hold in %1 (the GPU&apos;s memory less the overhead), keeping %2 spare; %3 at exactly %1.</source>
        <translation>예약 최대치 기준: PyTorch 캐싱 할당자가 %1(GPU 메모리에서 오버헤드를 뺀 값) 안에 처음 두 스텝을 담을 수 있는 가장 큰 배치이며, %2의 여유를 남깁니다. 정확히 %1에서는 %3입니다.</translation>
    </message>
    <message>
        <source>Above the max batch: PyTorch&apos;s allocator would reserve %1</source>
        <translation>최대 배치 초과: PyTorch 할당자가 %1을 예약하게 됩니다</translation>
    </message>
    <message>
        <source>Above the max batch of PyTorch&apos;s reserved memory</source>
        <translation>PyTorch 예약 메모리 기준 최대 배치 초과</translation>
    </message>
    <message>
        <source>the batch size</source>
        <translation>배치 크기</translation>
    </message>
    <message>
        <source>whole numbers from %1 up</source>
        <translation>%1 이상의 정수</translation>
    </message>
    <message>
        <source>Tensors per GPU: %1 of %2</source>
        <translation>GPU당 텐서: %1 / %2</translation>
    </message>
    <message>
        <source>Tensors: %1 of %2</source>
        <translation>텐서: %1 / %2</translation>
    </message>
    <message>
        <source>Reserved by PyTorch&apos;s caching allocator: %1, plus %2 outside it</source>
        <translation>PyTorch 캐싱 할당자 예약: %1, 할당자 밖에 %2 추가</translation>
    </message>
    <message>
        <source>Allocated at its peak: %1 (tensors %2, cuBLAS and cuDNN workspaces %3)</source>
        <translation>최대치에서 할당: %1(텐서 %2, cuBLAS와 cuDNN 작업 공간 %3)</translation>
    </message>
    <message>
        <source>The GPU&apos;s %1 less what it holds at the peak, %2: what PyTorch&apos;s caching allocator reserves plus the overhead</source>
        <translation>GPU의 %1에서 최대치에 사용하는 %2를 뺀 값: PyTorch 캐싱 할당자가 예약하는 메모리와 오버헤드</translation>
    </message>
    <message>
        <source>The GPU&apos;s %1 less the tensors&apos; peak, %2: PyTorch&apos;s caching allocator is not simulated</source>
        <translation>GPU의 %1에서 텐서 최대치 %2를 뺀 값: PyTorch 캐싱 할당자는 시뮬레이션하지 않았습니다</translation>
    </message>
    <message>
        <source> (at %1 of %2 TFLOPS%3)</source>
        <translation> (%2 TFLOPS의 %1%3)</translation>
    </message>
    <message>
        <source>−%1</source>
        <translation>−%1</translation>
    </message>
    <message>
        <source>+%1: checkpointing these layers costs memory</source>
        <translation>+%1: 이 레이어들을 체크포인트하면 메모리가 더 듭니다</translation>
    </message>
    <message>
        <source>Checkpointing: activations %1 instead of %2 per sample (%3), recomputing %4 per sample (+%5 forward compute)</source>
        <translation>체크포인팅: 샘플당 활성화 %2 대신 %1 (%3), 샘플당 재계산 %4 (순전파 연산 +%5)</translation>
    </message>
    <message>
        <source>Trainable: %1 of %2 parameters (%3)</source>
        <translation>학습 대상: 파라미터 %2개 중 %1개 (%3)</translation>
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
        <translation>피크 시 점유: %1 (텐서: %2) / %3</translation>
    </message>
    <message>
        <source>One optimizer step: %1</source>
        <translation>옵티마이저 스텝 1회: %1</translation>
    </message>
    <message>
        <source>Fastest first</source>
        <translation>빠른 순</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Tensor parallel GPUs (with sequence parallelism), within one node</source>
        <translation>텐서 병렬 GPU 수(시퀀스 병렬 포함), 한 노드 안에서</translation>
    </message>
    <message>
        <source>TP</source>
        <translation>TP</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>파이프라인 스테이지</translation>
    </message>
    <message>
        <source>PP</source>
        <translation>PP</translation>
    </message>
    <message>
        <source>The pipeline&apos;s schedule (× the model chunks of each stage)</source>
        <translation>파이프라인 스케줄 (× 스테이지당 모델 청크 수)</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>스케줄</translation>
    </message>
    <message>
        <source>Context parallel GPUs: each holds a part of the sequence</source>
        <translation>컨텍스트 병렬 GPU 수: 각각 시퀀스의 일부를 보유</translation>
    </message>
    <message>
        <source>CP</source>
        <translation>CP</translation>
    </message>
    <message>
        <source>Expert parallel GPUs: each holds a part of the experts</source>
        <translation>전문가 병렬 GPU 수: 각각 전문가의 일부를 보유</translation>
    </message>
    <message>
        <source>EP</source>
        <translation>EP</translation>
    </message>
    <message>
        <source>Data-parallel replicas: the GPUs ÷ (TP × PP × CP)</source>
        <translation>데이터 병렬 복제본 수: GPU 수 ÷ (TP × PP × CP)</translation>
    </message>
    <message>
        <source>DP</source>
        <translation>DP</translation>
    </message>
    <message>
        <source>Samples per micro-batch on each data-parallel replica</source>
        <translation>데이터 병렬 복제본마다 마이크로 배치당 샘플 수</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>마이크로 배치</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step (the accumulation steps)</source>
        <translation>옵티마이저 스텝당 마이크로 배치 수 (누적 스텝)</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>누적</translation>
    </message>
    <message>
        <source>Activation recomputation (checkpointing)</source>
        <translation>활성값 재계산 (체크포인팅)</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>재계산</translation>
    </message>
    <message>
        <source>Sharding over the data-parallel replicas (DDP: none)</source>
        <translation>데이터 병렬 복제본 간 샤딩 (DDP: 없음)</translation>
    </message>
    <message>
        <source>ZeRO</source>
        <translation>ZeRO</translation>
    </message>
    <message>
        <source>What the heaviest GPU holds at its peak: what PyTorch&apos;s caching allocator reserves, plus the overhead</source>
        <translation>가장 무거운 GPU가 피크 시 점유하는 메모리: PyTorch 캐싱 할당자가 예약하는 메모리와 오버헤드</translation>
    </message>
    <message>
        <source>Memory (heaviest GPU)</source>
        <translation>메모리 (가장 무거운 GPU)</translation>
    </message>
    <message>
        <source>The pipeline stage on that GPU (its layers in the cell&apos;s tooltip)</source>
        <translation>그 GPU의 파이프라인 스테이지 (레이어는 셀 툴팁에)</translation>
    </message>
    <message>
        <source>Heaviest stage</source>
        <translation>가장 무거운 스테이지</translation>
    </message>
    <message>
        <source>Samples per second of the whole cluster, by the throughput model (no communication timed)</source>
        <translation>클러스터 전체의 초당 샘플 수, 처리량 모델 기준 (통신 시간 제외)</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>샘플/초</translation>
    </message>
    <message>
        <source>The pipeline bubble&apos;s share of the step: (PP − 1) ÷ (chunks × accumulation)</source>
        <translation>스텝 중 파이프라인 버블의 비율: (PP − 1) ÷ (청크 수 × 누적)</translation>
    </message>
    <message>
        <source>Bubble</source>
        <translation>버블</translation>
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
        <translation>%1, 마이크로 배치 %2 × %3</translation>
    </message>
    <message>
        <source>GP&amp;Us:</source>
        <translation>GPU 수(&amp;U):</translation>
    </message>
    <message>
        <source>GPUs per &amp;node:</source>
        <translation>노드당 GPU(&amp;N):</translation>
    </message>
    <message>
        <source>&amp;Global batch:</source>
        <translation>전역 배치(&amp;G):</translation>
    </message>
    <message>
        <source>&amp;Apply Layout</source>
        <translation>레이아웃 적용(&amp;A)</translation>
    </message>
    <message>
        <source>Set this layout in the plan (Edit &gt; Undo takes it back)</source>
        <translation>이 레이아웃을 계획에 설정 (편집 &gt; 실행 취소로 되돌림)</translation>
    </message>
    <message>
        <source>Every GPU of the cluster, of the set-up&apos;s kind</source>
        <translation>클러스터의 모든 GPU, 설정과 같은 종류</translation>
    </message>
    <message>
        <source>Samples per optimizer step over all GPUs: micro-batch × accumulation steps × data parallel</source>
        <translation>모든 GPU에 걸친 옵티마이저 스텝당 샘플 수: 마이크로 배치 × 누적 스텝 × 데이터 병렬</translation>
    </message>
    <message>
        <source>Find La&amp;youts</source>
        <translation>레이아웃 찾기(&amp;Y)</translation>
    </message>
    <message>
        <source>Search the layouts of these GPUs that fit, fastest first (takes a few seconds for a large model; the rest of the window stays usable)</source>
        <translation>이 GPU들에 들어가는 레이아웃을 빠른 순으로 탐색 (큰 모델은 몇 초 걸리며, 창의 나머지는 계속 사용할 수 있음)</translation>
    </message>
    <message>
        <source>Left out: %1.</source>
        <translation>제외: %1.</translation>
    </message>
    <message>
        <source>Searching the layouts…</source>
        <translation>레이아웃 탐색 중…</translation>
    </message>
    <message>
        <source>Find Layouts searches tensor × pipeline × data × context × expert parallelism, the micro-batch, recomputation and ZeRO stage for these GPUs and this global batch.</source>
        <translation>레이아웃 찾기는 이 GPU들과 전역 배치에 대해 텐서 × 파이프라인 × 데이터 × 컨텍스트 × 전문가 병렬, 마이크로 배치, 재계산, ZeRO 단계를 탐색합니다.</translation>
    </message>
    <message>
        <source>The set-up or the request changed since these layouts were found: Find Layouts to search again.</source>
        <translation>이 레이아웃을 찾은 뒤 설정이나 요청이 바뀌었습니다: 레이아웃 찾기로 다시 탐색하세요.</translation>
    </message>
    <message>
        <source>Cannot plan the cluster: %1</source>
        <translation>클러스터를 계획할 수 없음: %1</translation>
    </message>
    <message>
        <source>Nothing fits: %1.</source>
        <translation>들어가는 레이아웃 없음: %1.</translation>
    </message>
    <message>
        <source>1 layout fits</source>
        <translation>레이아웃 1개가 들어감</translation>
    </message>
    <message>
        <source>%1 layouts fit</source>
        <translation>레이아웃 %1개가 들어감</translation>
    </message>
    <message>
        <source>%1, fastest first (%2). Double-click one or Apply Layout to set it.</source>
        <translation>%1, 빠른 순 (%2). 행을 더블클릭하거나 레이아웃 적용으로 설정하세요.</translation>
    </message>
    <message>
        <source>Apply layout: %1</source>
        <translation>레이아웃 적용: %1</translation>
    </message>
    <message>
        <source>the network is empty: add layers to find the layouts that fit</source>
        <translation>네트워크가 비어 있습니다: 레이어를 추가해야 들어가는 레이아웃을 찾을 수 있습니다</translation>
    </message>
    <message>
        <source>GPUs per node, as in the set-up (Multi-GPU tab): tensor and expert parallelism stay within one node (NVLink), as Megatron-LM places them</source>
        <translation>노드당 GPU 수, 설정과 같음 (멀티 GPU 탭): 텐서 병렬과 전문가 병렬은 Megatron-LM의 배치처럼 한 노드(NVLink) 안에 둡니다</translation>
    </message>
</context>
<context>
    <name>headroom::ui::CoreText</name>
    <message>
        <source>2-D average pooling over [C, H, W]</source>
        <translation>[C, H, W]에 대한 2차원 평균 풀링</translation>
    </message>
    <message>
        <source>Batch normalisation over [C] or [C, L]</source>
        <translation>[C] 또는 [C, L]에 대한 배치 정규화</translation>
    </message>
    <message>
        <source>Batch normalisation over [C, H, W]</source>
        <translation>[C, H, W]에 대한 배치 정규화</translation>
    </message>
    <message>
        <source>Concatenates inputs along an axis (torch.cat)</source>
        <translation>입력을 한 축을 따라 이어 붙임 (torch.cat)</translation>
    </message>
    <message>
        <source>1-D convolution over [C, L]</source>
        <translation>[C, L]에 대한 1차원 합성곱</translation>
    </message>
    <message>
        <source>2-D convolution over [C, H, W]</source>
        <translation>[C, H, W]에 대한 2차원 합성곱</translation>
    </message>
    <message>
        <source>2-D transposed convolution over [C, H, W]</source>
        <translation>[C, H, W]에 대한 2차원 전치 합성곱</translation>
    </message>
    <message>
        <source>Zeroes elements with probability p while training</source>
        <translation>학습 중 확률 p로 원소를 0으로 만듦</translation>
    </message>
    <message>
        <source>Drops a residual branch for whole samples with probability p while training</source>
        <translation>학습 중 확률 p로 샘플 단위로 잔차 분기를 버림</translation>
    </message>
    <message>
        <source>Lookup table of learned vectors for integer ids</source>
        <translation>정수 id로 학습된 벡터를 찾는 조회 테이블</translation>
    </message>
    <message>
        <source>Flattens a range of axes into one (a view)</source>
        <translation>연속된 여러 축을 하나로 펼침 (뷰)</translation>
    </message>
    <message>
        <source>Gaussian error linear unit</source>
        <translation>가우시안 오차 선형 유닛</translation>
    </message>
    <message>
        <source>Gated recurrent unit over a sequence [T, features]</source>
        <translation>시퀀스 [T, features]에 대한 게이트 순환 유닛</translation>
    </message>
    <message>
        <source>Group normalisation over [C, *]</source>
        <translation>[C, *]에 대한 그룹 정규화</translation>
    </message>
    <message>
        <source>Passes its input through unchanged</source>
        <translation>입력을 그대로 전달</translation>
    </message>
    <message>
        <source>Long short-term memory over a sequence [T, features]</source>
        <translation>시퀀스 [T, features]에 대한 장단기 메모리</translation>
    </message>
    <message>
        <source>Layer normalisation over the trailing axes</source>
        <translation>뒤쪽 축들에 대한 레이어 정규화</translation>
    </message>
    <message>
        <source>x if x &gt; 0 else negative_slope * x</source>
        <translation>x &gt; 0이면 x, 아니면 negative_slope * x</translation>
    </message>
    <message>
        <source>Fully connected layer on the last axis</source>
        <translation>마지막 축에 대한 완전 연결 레이어</translation>
    </message>
    <message>
        <source>2-D max pooling over [C, H, W]</source>
        <translation>[C, H, W]에 대한 2차원 최대 풀링</translation>
    </message>
    <message>
        <source>Multi-head self-attention over a sequence [T, E]</source>
        <translation>시퀀스 [T, E]에 대한 멀티헤드 셀프 어텐션</translation>
    </message>
    <message>
        <source>GELU, tanh approximation written out in tensor ops (Hugging Face&apos;s gelu_new, GPT-2)</source>
        <translation>텐서 연산으로 풀어 쓴 GELU tanh 근사 (Hugging Face의 gelu_new, GPT-2)</translation>
    </message>
    <message>
        <source>Learned position vectors added to a sequence [T, D]</source>
        <translation>시퀀스 [T, D]에 더하는 학습된 위치 벡터</translation>
    </message>
    <message>
        <source>Root-mean-square normalisation over the last axis (Llama&apos;s RMSNorm, computed in float32)</source>
        <translation>마지막 축에 대한 제곱평균제곱근 정규화 (Llama의 RMSNorm, float32로 계산)</translation>
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
        <translation>투영된 q, k, v에 대한 멀티헤드 어텐션 (그룹 쿼리, 선택적 회전 임베딩)</translation>
    </message>
    <message>
        <source>x * sigmoid(x) (swish)</source>
        <translation>x * sigmoid(x) (swish)</translation>
    </message>
    <message>
        <source>1 / (1 + exp(-x))</source>
        <translation>1 / (1 + exp(-x))</translation>
    </message>
    <message>
        <source>Softmax along one axis</source>
        <translation>한 축을 따라 softmax</translation>
    </message>
    <message>
        <source>tanh(x)</source>
        <translation>tanh(x)</translation>
    </message>
    <message>
        <source>Learned segment vectors added to a sequence [T, D] (BERT&apos;s token type embeddings, segment 0)</source>
        <translation>시퀀스 [T, D]에 더하는 학습된 세그먼트 벡터 (BERT의 토큰 유형 임베딩, 세그먼트 0)</translation>
    </message>
    <message>
        <source>Self-attention and feed-forward block with residuals and LayerNorms</source>
        <translation>잔차와 LayerNorm을 갖춘 셀프 어텐션 및 피드포워드 블록</translation>
    </message>
    <message>
        <source>Window size</source>
        <translation>윈도 크기</translation>
    </message>
    <message>
        <source>Stride (kernel_size if left out)</source>
        <translation>스트라이드 (생략하면 kernel_size)</translation>
    </message>
    <message>
        <source>Implicit zero padding</source>
        <translation>암묵적 0 패딩</translation>
    </message>
    <message>
        <source>Rounds the output size up</source>
        <translation>출력 크기를 올림</translation>
    </message>
    <message>
        <source>Averages over padding too</source>
        <translation>패딩까지 포함해 평균</translation>
    </message>
    <message>
        <source>Divisor instead of the window size</source>
        <translation>윈도 크기 대신 쓸 나눗수</translation>
    </message>
    <message>
        <source>Channels (inferred from the input if left out)</source>
        <translation>채널 수 (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Added to the variance</source>
        <translation>분산에 더하는 값</translation>
    </message>
    <message>
        <source>Running-statistics momentum</source>
        <translation>이동 통계의 모멘텀</translation>
    </message>
    <message>
        <source>Keeps running mean and variance buffers</source>
        <translation>이동 평균과 분산 버퍼를 유지</translation>
    </message>
    <message>
        <source>Axis, counting the batch axis as 0 (1 = channels)</source>
        <translation>축 (배치 축을 0으로 셈, 1 = 채널)</translation>
    </message>
    <message>
        <source>Input channels (inferred from the input if left out)</source>
        <translation>입력 채널 수 (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Output channels</source>
        <translation>출력 채널 수</translation>
    </message>
    <message>
        <source>Kernel size</source>
        <translation>커널 크기</translation>
    </message>
    <message>
        <source>Stride</source>
        <translation>스트라이드</translation>
    </message>
    <message>
        <source>Spacing between kernel elements</source>
        <translation>커널 원소 사이의 간격</translation>
    </message>
    <message>
        <source>Blocked connections from input to output channels</source>
        <translation>입력 채널에서 출력 채널로의 그룹 연결</translation>
    </message>
    <message>
        <source>Adds a learnable bias</source>
        <translation>학습 가능한 편향을 추가</translation>
    </message>
    <message>
        <source>Implicit zero padding removed from each side</source>
        <translation>양쪽에서 제거되는 암묵적 0 패딩</translation>
    </message>
    <message>
        <source>Extra size added to one side of the output</source>
        <translation>출력 한쪽에 더해지는 추가 크기</translation>
    </message>
    <message>
        <source>Probability of zeroing an element</source>
        <translation>원소를 0으로 만들 확률</translation>
    </message>
    <message>
        <source>Overwrites the input</source>
        <translation>입력을 덮어씀</translation>
    </message>
    <message>
        <source>Probability of dropping a sample&apos;s branch</source>
        <translation>한 샘플의 분기를 버릴 확률</translation>
    </message>
    <message>
        <source>row: each sample on its own; batch: the whole batch at once</source>
        <translation>row: 샘플마다 따로; batch: 배치 전체를 한 번에</translation>
    </message>
    <message>
        <source>Vocabulary size (rows of the table)</source>
        <translation>어휘 크기 (테이블의 행 수)</translation>
    </message>
    <message>
        <source>Vector size</source>
        <translation>벡터 크기</translation>
    </message>
    <message>
        <source>Id whose vector stays zero and gets no gradient</source>
        <translation>벡터가 0으로 유지되고 그래디언트를 받지 않는 id</translation>
    </message>
    <message>
        <source>First axis to flatten, counting the batch axis as 0</source>
        <translation>펼칠 첫 번째 축 (배치 축을 0으로 셈)</translation>
    </message>
    <message>
        <source>Last axis to flatten (negative counts from the end)</source>
        <translation>펼칠 마지막 축 (음수는 끝에서부터 셈)</translation>
    </message>
    <message>
        <source>Exact erf form or the tanh approximation</source>
        <translation>정확한 erf 형태 또는 tanh 근사</translation>
    </message>
    <message>
        <source>Input features (inferred from the input if left out)</source>
        <translation>입력 특성 수 (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Features of the hidden state</source>
        <translation>은닉 상태의 특성 수</translation>
    </message>
    <message>
        <source>Stacked recurrent layers</source>
        <translation>쌓은 순환 레이어 수</translation>
    </message>
    <message>
        <source>Biases b_ih and b_hh</source>
        <translation>편향 b_ih와 b_hh</translation>
    </message>
    <message>
        <source>Batch axis first: the output is a transposed view, which a following Linear or Flatten copies</source>
        <translation>배치 축을 맨 앞에: 출력은 전치된 뷰이며, 뒤따르는 Linear나 Flatten이 이를 복사합니다</translation>
    </message>
    <message>
        <source>Dropout between stacked layers</source>
        <translation>쌓은 레이어 사이의 dropout</translation>
    </message>
    <message>
        <source>Also runs the sequence backwards (doubles the output features)</source>
        <translation>시퀀스를 역방향으로도 처리 (출력 특성 수가 두 배)</translation>
    </message>
    <message>
        <source>Groups the channels are split into</source>
        <translation>채널을 나눌 그룹 수</translation>
    </message>
    <message>
        <source>Learnable per-channel scale and shift</source>
        <translation>채널별 학습 가능한 스케일과 이동</translation>
    </message>
    <message>
        <source>Projection size of the hidden state (only 0 is supported)</source>
        <translation>은닉 상태의 투영 크기 (0만 지원)</translation>
    </message>
    <message>
        <source>Trailing axes to normalise (the last axis if left out)</source>
        <translation>정규화할 뒤쪽 축들 (생략하면 마지막 축)</translation>
    </message>
    <message>
        <source>Learnable per-element scale (and shift)</source>
        <translation>원소별 학습 가능한 스케일 (및 이동)</translation>
    </message>
    <message>
        <source>Learnable shift (with elementwise_affine)</source>
        <translation>학습 가능한 이동 (elementwise_affine과 함께)</translation>
    </message>
    <message>
        <source>Slope for negative inputs</source>
        <translation>음수 입력의 기울기</translation>
    </message>
    <message>
        <source>Overwrites the input instead of allocating an output</source>
        <translation>출력을 새로 할당하지 않고 입력을 덮어씀</translation>
    </message>
    <message>
        <source>Output features</source>
        <translation>출력 특성 수</translation>
    </message>
    <message>
        <source>Implicit negative-infinity padding</source>
        <translation>암묵적 음의 무한대 패딩</translation>
    </message>
    <message>
        <source>Spacing between window elements</source>
        <translation>윈도 원소 사이의 간격</translation>
    </message>
    <message>
        <source>Also returns the indices (they are kept anyway)</source>
        <translation>인덱스도 반환 (인덱스는 어차피 보관됨)</translation>
    </message>
    <message>
        <source>Embedding size E (inferred from the input if left out)</source>
        <translation>임베딩 크기 E (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Attention heads (must divide embed_dim)</source>
        <translation>어텐션 헤드 수 (embed_dim을 나누어떨어지게 해야 함)</translation>
    </message>
    <message>
        <source>Dropout on the attention probabilities</source>
        <translation>어텐션 확률에 적용하는 dropout</translation>
    </message>
    <message>
        <source>Biases on the input and output projections</source>
        <translation>입력 및 출력 투영의 편향</translation>
    </message>
    <message>
        <source>Learned bias rows appended to keys and values</source>
        <translation>키와 값에 덧붙이는 학습된 편향 행</translation>
    </message>
    <message>
        <source>A zero row appended to keys and values</source>
        <translation>키와 값에 덧붙이는 0 행</translation>
    </message>
    <message>
        <source>Key size (must equal embed_dim: self-attention) (inferred from the input if left out)</source>
        <translation>키 크기 (embed_dim과 같아야 함: 셀프 어텐션) (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Value size (must equal embed_dim: self-attention) (inferred from the input if left out)</source>
        <translation>값 크기 (embed_dim과 같아야 함: 셀프 어텐션) (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Batch axis first (no memory effect)</source>
        <translation>배치 축을 맨 앞에 (메모리에 영향 없음)</translation>
    </message>
    <message>
        <source>Return the attention weights: the explicit path that keeps heads x T x T probabilities; false uses fused scaled-dot-product attention</source>
        <translation>어텐션 가중치 반환: heads × T × T 확률을 보관하는 명시적 경로. false이면 융합된 스케일드 닷 프로덕트 어텐션을 씀</translation>
    </message>
    <message>
        <source>Causal mask hint (no memory effect)</source>
        <translation>인과 마스크 힌트 (메모리에 영향 없음)</translation>
    </message>
    <message>
        <source>Average the returned weights over heads (no memory effect)</source>
        <translation>반환하는 가중치를 헤드별로 평균 (메모리에 영향 없음)</translation>
    </message>
    <message>
        <source>Maximum sequence length (rows of the table)</source>
        <translation>최대 시퀀스 길이 (테이블의 행 수)</translation>
    </message>
    <message>
        <source>Vector size D (inferred from the input if left out)</source>
        <translation>벡터 크기 D (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Normalised size (the input&apos;s last axis) (inferred from the input if left out)</source>
        <translation>정규화 크기 (입력의 마지막 축) (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Added to the mean square</source>
        <translation>제곱평균에 더하는 값</translation>
    </message>
    <message>
        <source>Learnable per-element scale</source>
        <translation>원소별 학습 가능한 스케일</translation>
    </message>
    <message>
        <source>Query heads h</source>
        <translation>쿼리 헤드 수 h</translation>
    </message>
    <message>
        <source>Key/value heads g (grouped-query attention; must divide num_heads; default num_heads)</source>
        <translation>키/값 헤드 수 g (그룹 쿼리 어텐션, num_heads를 나누어떨어지게 해야 함, 기본값 num_heads)</translation>
    </message>
    <message>
        <source>Rotary position embedding applied to q and k (Llama)</source>
        <translation>q와 k에 회전 위치 임베딩 적용 (Llama)</translation>
    </message>
    <message>
        <source>Eager softmax in float32 then cast back (Llama&apos;s softmax(dtype=float32)); false: in the scores&apos; dtype (GPT-2, BERT)</source>
        <translation>명시적 softmax를 float32로 계산한 뒤 되돌림 (Llama의 softmax(dtype=float32)). false이면 점수의 dtype으로 계산 (GPT-2, BERT)</translation>
    </message>
    <message>
        <source>Causal mask (no memory effect)</source>
        <translation>인과 마스크 (메모리에 영향 없음)</translation>
    </message>
    <message>
        <source>Axis, counting the batch axis as 0 (negative counts from the end)</source>
        <translation>축 (배치 축을 0으로 셈, 음수는 끝에서부터 셈)</translation>
    </message>
    <message>
        <source>Segment types (rows of the table, type_vocab_size)</source>
        <translation>세그먼트 유형 수 (테이블의 행 수, type_vocab_size)</translation>
    </message>
    <message>
        <source>Model width (the input&apos;s last axis) (inferred from the input if left out)</source>
        <translation>모델 폭 (입력의 마지막 축) (생략하면 입력에서 추론)</translation>
    </message>
    <message>
        <source>Attention heads (must divide d_model)</source>
        <translation>어텐션 헤드 수 (d_model을 나누어떨어지게 해야 함)</translation>
    </message>
    <message>
        <source>Feed-forward width</source>
        <translation>피드포워드 폭</translation>
    </message>
    <message>
        <source>Dropout probability (attention, residual branches, feed-forward)</source>
        <translation>dropout 확률 (어텐션, 잔차 분기, 피드포워드)</translation>
    </message>
    <message>
        <source>Feed-forward activation</source>
        <translation>피드포워드 활성화 함수</translation>
    </message>
    <message>
        <source>LayerNorm epsilon</source>
        <translation>LayerNorm 엡실론</translation>
    </message>
    <message>
        <source>LayerNorm before attention and feed-forward (pre-norm)</source>
        <translation>어텐션과 피드포워드 앞에 LayerNorm (pre-norm)</translation>
    </message>
    <message>
        <source>Biases in the linear layers and LayerNorms</source>
        <translation>선형 레이어와 LayerNorm의 편향</translation>
    </message>
    <message>
        <source>kernel_size</source>
        <translation>kernel_size</translation>
    </message>
    <message>
        <source>the window size</source>
        <translation>윈도 크기</translation>
    </message>
    <message>
        <source>from the input</source>
        <translation>입력에서 추론</translation>
    </message>
    <message>
        <source>none</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>the last axis</source>
        <translation>마지막 축</translation>
    </message>
    <message>
        <source>num_heads</source>
        <translation>num_heads</translation>
    </message>
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
        <source>Transient</source>
        <translation>임시 텐서</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation>통신 버퍼</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>프레임워크 오버헤드</translation>
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
        <source>RMSprop (centered, momentum)</source>
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
        <source>None</source>
        <translation>없음</translation>
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
        <translation>Flash / SDPA</translation>
    </message>
    <message>
        <source>Eager (keeps T x T scores)</source>
        <translation>Eager (T × T 점수 보관)</translation>
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
        <source>FSDP shard grad/op</source>
        <translation>FSDP 그래디언트·옵티마이저 샤딩</translation>
    </message>
    <message>
        <source>FSDP full shard</source>
        <translation>FSDP 전체 샤딩</translation>
    </message>
    <message>
        <source>%1 runs fp16 at %2 of its fp32 rate; mixed precision will be slower than fp32 on this card</source>
        <translation>%1은(는) fp16을 fp32 속도의 %2로 실행합니다. 이 카드에서는 혼합 정밀도가 fp32보다 느립니다</translation>
    </message>
    <message>
        <source>Assumes %1 of the %2 peak (model FLOPs utilisation); large transformer training typically reaches 30-50%, small CNNs less</source>
        <translation>%2 최대 성능의 %1을(를) 가정합니다 (모델 FLOPs 활용률). 대형 트랜스포머 학습은 보통 30-50%, 작은 CNN은 그보다 낮습니다</translation>
    </message>
    <message>
        <source>Memory-bound: moving the step&apos;s weights, gradients, optimizer state and activations at %1 GB/s takes longer than its arithmetic</source>
        <translation>메모리 대역폭 제한: 스텝의 가중치, 그래디언트, 옵티마이저 상태, 활성화를 %1 GB/s로 옮기는 시간이 연산보다 깁니다</translation>
    </message>
    <message>
        <source>%1 has no memory bandwidth figure: the memory-bound check is skipped</source>
        <translation>%1에는 메모리 대역폭 수치가 없어 메모리 대역폭 제한 검사를 건너뜁니다</translation>
    </message>
    <message>
        <source>fp32 uses the plain FP32 peak; PyTorch lets cuDNN use TF32 for convolutions by default on this card, so convolution-heavy fp32 training may run faster</source>
        <translation>fp32는 일반 FP32 최대 성능으로 계산합니다. 이 카드에서 PyTorch는 기본적으로 cuDNN이 합성곱에 TF32를 쓰도록 하므로, 합성곱 위주의 fp32 학습은 더 빠를 수 있습니다</translation>
    </message>
    <message>
        <source>%1 has no GPU-to-GPU bandwidth figure: assumes PCIe %2 x16, %3 GB/s each way</source>
        <translation>%1에는 GPU 간 대역폭 수치가 없어 PCIe %2 x16, 방향당 %3 GB/s로 가정합니다</translation>
    </message>
    <message>
        <source>Communication between GPUs: %1 a step, %2 of it not hidden by compute, at %3 GB/s between the GPUs of a node and %4 GB/s per GPU between nodes (peak bandwidth: no congestion or protocol overhead)</source>
        <translation>GPU 간 통신: 스텝당 %1, 그중 %2는 계산으로 가려지지 않음. 노드 내 GPU 간 %3 GB/s, 노드 간 GPU당 %4 GB/s 기준 (최대 대역폭: 혼잡과 프로토콜 오버헤드 제외)</translation>
    </message>
    <message>
        <source>Communication between GPUs: %1 a step, %2 of it not hidden by compute, at %3 GB/s between GPUs (peak bandwidth: no congestion or protocol overhead)</source>
        <translation>GPU 간 통신: 스텝당 %1, 그중 %2는 계산으로 가려지지 않음. GPU 간 %3 GB/s 기준 (최대 대역폭: 혼잡과 프로토콜 오버헤드 제외)</translation>
    </message>
    <message>
        <source>The network does no arithmetic and moves no memory: no throughput to estimate</source>
        <translation>네트워크가 연산도 메모리 이동도 하지 않아 추정할 처리량이 없습니다</translation>
    </message>
    <message>
        <source>A router and gated expert MLPs, each token through its top-k experts (Mixtral, Qwen-MoE, DeepSeek-V3)</source>
        <translation>라우터와 게이트 전문가 MLP, 각 토큰은 상위 k개 전문가를 거침 (Mixtral, Qwen-MoE, DeepSeek-V3)</translation>
    </message>
    <message>
        <source>DeepSeek-V3&apos;s attention with low-rank query and key/value projections, projections included</source>
        <translation>쿼리와 키/값 투영이 저랭크인 DeepSeek-V3 어텐션, 투영 포함</translation>
    </message>
    <message>
        <source>Applied to the first half (the gate)</source>
        <translation>앞쪽 절반(게이트)에 적용</translation>
    </message>
    <message>
        <source>Biases on q_a_proj, kv_a_proj_with_mqa and o_proj</source>
        <translation>q_a_proj, kv_a_proj_with_mqa, o_proj의 편향</translation>
    </message>
    <message>
        <source>Each expert&apos;s MLP width F</source>
        <translation>전문가별 MLP 너비 F</translation>
    </message>
    <message>
        <source>Experts each token is routed to (top-k)</source>
        <translation>토큰마다 라우팅되는 전문가 수 (top-k)</translation>
    </message>
    <message>
        <source>Gemma 2&apos;s attn_logit_softcapping: scores become cap x tanh(scores / cap) before the softmax (eager attention keeps the tanh); 0 = none</source>
        <translation>Gemma 2의 attn_logit_softcapping: softmax 전에 점수가 cap x tanh(scores / cap)가 됨 (eager 어텐션은 tanh를 보관); 0 = 없음</translation>
    </message>
    <message>
        <source>Heads h</source>
        <translation>헤드 수 h</translation>
    </message>
    <message>
        <source>Mixtral&apos;s router_jitter_noise: multiplies the input by uniform noise in training</source>
        <translation>Mixtral의 router_jitter_noise: 학습 중 입력에 균등 잡음을 곱함</translation>
    </message>
    <message>
        <source>Multiplies the looked-up vectors (Gemma: sqrt(embedding_dim)); 1 = none</source>
        <translation>조회한 벡터에 곱함 (Gemma: sqrt(embedding_dim)); 1 = 없음</translation>
    </message>
    <message>
        <source>Normalise each group of this many features on its own (per-head q/k norms: head_dim); the weight has this size</source>
        <translation>이 개수만큼의 특징 묶음마다 따로 정규화 (헤드별 q/k 정규화: head_dim). 가중치가 이 크기</translation>
    </message>
    <message>
        <source>Query/key head size with rotary embedding (shared by the heads for keys)</source>
        <translation>회전 임베딩이 적용되는 쿼리/키 헤드 크기 (키는 헤드들이 공유)</translation>
    </message>
    <message>
        <source>Query/key head size without rotary embedding</source>
        <translation>회전 임베딩이 없는 쿼리/키 헤드 크기</translation>
    </message>
    <message>
        <source>Rank of the compressed keys and values (kv_a_proj_with_mqa)</source>
        <translation>압축된 키와 값의 랭크 (kv_a_proj_with_mqa)</translation>
    </message>
    <message>
        <source>Foreach (PyTorch default)</source>
        <translation>Foreach (PyTorch 기본값)</translation>
    </message>
    <message>
        <source>Fused</source>
        <translation>Fused (융합)</translation>
    </message>
    <message>
        <source>For-loop</source>
        <translation>For 루프</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>순전파</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>역전파</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>옵티마이저 스텝</translation>
    </message>
    <message>
        <source>act(first half) x second half of a packed gate/up projection (Phi-3&apos;s gate_up_proj)</source>
        <translation>act(앞쪽 절반) x 뒤쪽 절반, 묶인 gate/up 투영에 적용 (Phi-3의 gate_up_proj)</translation>
    </message>
    <message>
        <source>cap x tanh(x / cap): soft-caps logits to (-cap, cap) (Gemma 2&apos;s final_logit_softcapping)</source>
        <translation>cap x tanh(x / cap): 로짓을 (-cap, cap)으로 부드럽게 제한 (Gemma 2의 final_logit_softcapping)</translation>
    </message>
    <message>
        <source>Rank of the query projection (q_a_proj, q_b_proj); 0: one q_proj</source>
        <translation>쿼리 투영의 랭크 (q_a_proj, q_b_proj); 0: q_proj 하나</translation>
    </message>
    <message>
        <source>Renormalise the top-k routing weights to sum to 1</source>
        <translation>상위 k개 라우팅 가중치의 합이 1이 되도록 다시 정규화</translation>
    </message>
    <message>
        <source>Routed experts E (each a gated MLP)</source>
        <translation>라우팅되는 전문가 수 E (각각 게이트 MLP)</translation>
    </message>
    <message>
        <source>Scale by 1 + weight in float32 and return the input&apos;s dtype (Gemma&apos;s RMSNorm)</source>
        <translation>float32로 1 + weight를 곱하고 입력의 dtype으로 반환 (Gemma의 RMSNorm)</translation>
    </message>
    <message>
        <source>The RMSNorms&apos; epsilon</source>
        <translation>RMSNorm의 epsilon</translation>
    </message>
    <message>
        <source>The bound the values approach</source>
        <translation>값이 다가가는 한계</translation>
    </message>
    <message>
        <source>The experts&apos; activation (on the gate projection)</source>
        <translation>전문가의 활성화 함수 (게이트 투영에 적용)</translation>
    </message>
    <message>
        <source>The experts&apos; projection names (LoRA targets): Qwen and DeepSeek&apos;s, or Mixtral&apos;s</source>
        <translation>전문가 투영의 이름 (LoRA 대상): Qwen과 DeepSeek 방식 또는 Mixtral 방식</translation>
    </message>
    <message>
        <source>Value head size</source>
        <translation>값 헤드 크기</translation>
    </message>
    <message>
        <source>softmax: softmax over all experts, then top-k (Mixtral, Qwen-MoE); sigmoid: float32 sigmoid scores, bias-corrected group-limited top-k (DeepSeek-V3)</source>
        <translation>softmax: 모든 전문가에 softmax 후 상위 k개 (Mixtral, Qwen-MoE); sigmoid: float32 sigmoid 점수, 편향 보정과 그룹 제한을 둔 상위 k개 (DeepSeek-V3)</translation>
    </message>
    <message>
        <source>eager: a loop over the experts with index_add_ (transformers 4.5x, or experts_implementation=&quot;eager&quot;); grouped_mm: one grouped product over all assignments in the weights&apos; dtype (transformers 5&apos;s default on CUDA)</source>
        <translation>eager: 전문가마다 반복하며 index_add_로 합산 (transformers 4.5x, 또는 experts_implementation=&quot;eager&quot;); grouped_mm: 가중치의 dtype으로 모든 배정을 한 번의 그룹 행렬곱으로 계산 (CUDA에서 transformers 5의 기본값)</translation>
    </message>
    <message>
        <source>the whole last axis</source>
        <translation>마지막 축 전체</translation>
    </message>
    <message>
        <source>1-D transposed convolution over [C, L]</source>
        <translation>[C, L]에 대한 1차원 전치 합성곱</translation>
    </message>
    <message>
        <source>3-D convolution over [C, D, H, W]</source>
        <translation>[C, D, H, W]에 대한 3차원 합성곱</translation>
    </message>
    <message>
        <source>3-D transposed convolution over [C, D, H, W]</source>
        <translation>[C, D, H, W]에 대한 3차원 전치 합성곱</translation>
    </message>
    <message>
        <source>1-D average pooling over [C, L]</source>
        <translation>[C, L]에 대한 1차원 평균 풀링</translation>
    </message>
    <message>
        <source>1-D max pooling over [C, L]</source>
        <translation>[C, L]에 대한 1차원 최대 풀링</translation>
    </message>
    <message>
        <source>3-D average pooling over [C, D, H, W]</source>
        <translation>[C, D, H, W]에 대한 3차원 평균 풀링</translation>
    </message>
    <message>
        <source>3-D max pooling over [C, D, H, W]</source>
        <translation>[C, D, H, W]에 대한 3차원 최대 풀링</translation>
    </message>
    <message>
        <source>Average pooling of [C, D, H, W] to a fixed output size</source>
        <translation>[C, D, H, W]를 고정된 출력 크기로 평균 풀링</translation>
    </message>
    <message>
        <source>Average pooling of [C, H, W] to a fixed output size</source>
        <translation>[C, H, W]를 고정된 출력 크기로 평균 풀링</translation>
    </message>
    <message>
        <source>Average pooling of [C, L] to a fixed output size</source>
        <translation>[C, L]을 고정된 출력 크기로 평균 풀링</translation>
    </message>
    <message>
        <source>Max pooling of [C, D, H, W] to a fixed output size</source>
        <translation>[C, D, H, W]를 고정된 출력 크기로 최대 풀링</translation>
    </message>
    <message>
        <source>Max pooling of [C, H, W] to a fixed output size</source>
        <translation>[C, H, W]를 고정된 출력 크기로 최대 풀링</translation>
    </message>
    <message>
        <source>Max pooling of [C, L] to a fixed output size</source>
        <translation>[C, L]을 고정된 출력 크기로 최대 풀링</translation>
    </message>
    <message>
        <source>Batch normalisation over [C, D, H, W]</source>
        <translation>[C, D, H, W]에 대한 배치 정규화</translation>
    </message>
    <message>
        <source>Instance normalisation (per sample and channel) over [C, D, H, W]</source>
        <translation>[C, D, H, W]에 대한 인스턴스 정규화 (샘플과 채널별)</translation>
    </message>
    <message>
        <source>Instance normalisation (per sample and channel) over [C, H, W]</source>
        <translation>[C, H, W]에 대한 인스턴스 정규화 (샘플과 채널별)</translation>
    </message>
    <message>
        <source>Instance normalisation (per sample and channel) over [C, L]</source>
        <translation>[C, L]에 대한 인스턴스 정규화 (샘플과 채널별)</translation>
    </message>
    <message>
        <source>Circular padding of the last 2 axes</source>
        <translation>마지막 2개 축의 순환 패딩</translation>
    </message>
    <message>
        <source>Circular padding of the last 3 axes</source>
        <translation>마지막 3개 축의 순환 패딩</translation>
    </message>
    <message>
        <source>Circular padding of the last axis</source>
        <translation>마지막 축의 순환 패딩</translation>
    </message>
    <message>
        <source>Constant padding of the last 2 axes</source>
        <translation>마지막 2개 축의 상수 패딩</translation>
    </message>
    <message>
        <source>Constant padding of the last 3 axes</source>
        <translation>마지막 3개 축의 상수 패딩</translation>
    </message>
    <message>
        <source>Constant padding of the last axis</source>
        <translation>마지막 축의 상수 패딩</translation>
    </message>
    <message>
        <source>Pads the last axes (F.pad)</source>
        <translation>마지막 축들을 패딩 (F.pad)</translation>
    </message>
    <message>
        <source>Reflection padding of the last 2 axes</source>
        <translation>마지막 2개 축의 반사 패딩</translation>
    </message>
    <message>
        <source>Reflection padding of the last 3 axes</source>
        <translation>마지막 3개 축의 반사 패딩</translation>
    </message>
    <message>
        <source>Reflection padding of the last axis</source>
        <translation>마지막 축의 반사 패딩</translation>
    </message>
    <message>
        <source>Replication padding of the last 2 axes</source>
        <translation>마지막 2개 축의 복제 패딩</translation>
    </message>
    <message>
        <source>Replication padding of the last 3 axes</source>
        <translation>마지막 3개 축의 복제 패딩</translation>
    </message>
    <message>
        <source>Replication padding of the last axis</source>
        <translation>마지막 축의 복제 패딩</translation>
    </message>
    <message>
        <source>Zero padding of the last 2 axes</source>
        <translation>마지막 2개 축의 0 패딩</translation>
    </message>
    <message>
        <source>Zero padding of the last 3 axes</source>
        <translation>마지막 3개 축의 0 패딩</translation>
    </message>
    <message>
        <source>Zero padding of the last axis</source>
        <translation>마지막 축의 0 패딩</translation>
    </message>
    <message>
        <source>Elementwise difference of two operands</source>
        <translation>두 피연산자의 원소별 차</translation>
    </message>
    <message>
        <source>Elementwise product of two operands (gates, layer scale)</source>
        <translation>두 피연산자의 원소별 곱 (게이트, 레이어 스케일)</translation>
    </message>
    <message>
        <source>Elementwise quotient of two operands</source>
        <translation>두 피연산자의 원소별 나눗셈</translation>
    </message>
    <message>
        <source>Elementwise sum of two or more operands (residual)</source>
        <translation>두 개 이상의 피연산자를 원소별로 더함 (잔차)</translation>
    </message>
    <message>
        <source>Matrix product of two inputs over their last two axes (torch.matmul, bmm)</source>
        <translation>두 입력의 마지막 두 축에 대한 행렬 곱 (torch.matmul, bmm)</translation>
    </message>
    <message>
        <source>Maximum over axes (torch.amax)</source>
        <translation>여러 축에 걸친 최댓값 (torch.amax)</translation>
    </message>
    <message>
        <source>Euclidean (2-)norm over axes (torch.linalg.vector_norm, Tensor.norm)</source>
        <translation>여러 축에 걸친 유클리드 (2-)노름 (torch.linalg.vector_norm, Tensor.norm)</translation>
    </message>
    <message>
        <source>Trained values behind `parameter` when it is computed from a smaller stored tensor (Swin&apos;s relative-position bias, gathered from its table); 0 for a constant computed from sizes (a shifted-window attention mask)</source>
        <translation>`parameter`가 더 작은 저장 텐서로부터 계산될 때 그 뒤에서 학습되는 값의 개수 (Swin의 상대 위치 바이어스, 테이블에서 gather함); 크기로부터 계산된 상수이면 0 (shifted-window 어텐션 마스크)</translation>
    </message>
    <message>
        <source>the parameter&apos;s own size</source>
        <translation>파라미터 자체의 크기</translation>
    </message>
    <message>
        <source>Mean over axes (torch.mean)</source>
        <translation>여러 축에 걸친 평균 (torch.mean)</translation>
    </message>
    <message>
        <source>Sum over axes (torch.sum)</source>
        <translation>여러 축에 걸친 합 (torch.sum)</translation>
    </message>
    <message>
        <source>A contiguous copy of a permuted or sliced view (Tensor.contiguous)</source>
        <translation>축 순서를 바꾸거나 잘라 낸 뷰의 연속 복사본 (Tensor.contiguous)</translation>
    </message>
    <message>
        <source>A new shape: a view when the layout allows, else a copy (Tensor.reshape)</source>
        <translation>새 형태: 메모리 배치가 허용하면 뷰, 아니면 복사본 (Tensor.reshape)</translation>
    </message>
    <message>
        <source>A view with a new shape (Tensor.view)</source>
        <translation>새 형태의 뷰 (Tensor.view)</translation>
    </message>
    <message>
        <source>Broadcasts axes of size 1 to a larger size (a view)</source>
        <translation>크기가 1인 축을 더 큰 크기로 브로드캐스트 (뷰)</translation>
    </message>
    <message>
        <source>Inserts an axis of size 1 (a view)</source>
        <translation>크기가 1인 축을 삽입 (뷰)</translation>
    </message>
    <message>
        <source>One index of an axis, which is removed (x[:, 0]; a view)</source>
        <translation>한 축의 인덱스 하나를 고르고 그 축은 제거 (x[:, 0]; 뷰)</translation>
    </message>
    <message>
        <source>Removes axes of size 1 (a view)</source>
        <translation>크기가 1인 축을 제거 (뷰)</translation>
    </message>
    <message>
        <source>Reorders the axes (a view)</source>
        <translation>축의 순서를 바꿈 (뷰)</translation>
    </message>
    <message>
        <source>Splits one axis into several (a view)</source>
        <translation>한 축을 여러 축으로 나눔 (뷰)</translation>
    </message>
    <message>
        <source>Swaps two axes (a view)</source>
        <translation>두 축을 맞바꿈 (뷰)</translation>
    </message>
    <message>
        <source>length elements of one axis from start (a view)</source>
        <translation>한 축에서 start부터 length개 원소 (뷰)</translation>
    </message>
    <message>
        <source>x[..., start:end:step] along one axis (a view)</source>
        <translation>한 축을 따라 x[..., start:end:step] (뷰)</translation>
    </message>
    <message>
        <source>Resizes the spatial axes (nn.Upsample, F.interpolate)</source>
        <translation>공간 축의 크기를 바꿈 (nn.Upsample, F.interpolate)</translation>
    </message>
    <message>
        <source>Resizes the spatial axes, bilinear (2-D)</source>
        <translation>공간 축의 크기를 바꿈, 쌍선형 보간 (2차원)</translation>
    </message>
    <message>
        <source>Resizes the spatial axes, nearest (2-D)</source>
        <translation>공간 축의 크기를 바꿈, 최근접 보간 (2차원)</translation>
    </message>
    <message>
        <source>[C r^2, H, W] to [C, H r, W r] (sub-pixel convolution)</source>
        <translation>[C r^2, H, W]를 [C, H r, W r]로 (서브픽셀 합성곱)</translation>
    </message>
    <message>
        <source>[C, H r, W r] to [C r^2, H, W]</source>
        <translation>[C, H r, W r]을 [C r^2, H, W]로</translation>
    </message>
    <message>
        <source>-x</source>
        <translation>-x</translation>
    </message>
    <message>
        <source>Square root</source>
        <translation>제곱근</translation>
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
        <translation>min(max(x, min), max) (torch.clamp)</translation>
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
        <translation>x &gt; 0이면 scale x, 아니면 scale alpha (exp(x) - 1), 상수는 고정</translation>
    </message>
    <message>
        <source>x * relu6(x + 3) / 6 (MobileNetV3)</source>
        <translation>x * relu6(x + 3) / 6 (MobileNetV3)</translation>
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
        <translation>x &gt; 0이면 x, 아니면 alpha (exp(x) - 1)</translation>
    </message>
    <message>
        <source>x if x &gt; 0 else weight * x (a learned slope)</source>
        <translation>x &gt; 0이면 x, 아니면 weight * x (학습되는 기울기)</translation>
    </message>
    <message>
        <source>|x|</source>
        <translation>|x|</translation>
    </message>
    <message>
        <source>A constant used as the last operand (x / 8)</source>
        <translation>마지막 피연산자로 쓰는 상수 (x / 8)</translation>
    </message>
    <message>
        <source>Above beta x &gt; threshold the function is linear</source>
        <translation>beta x &gt; threshold이면 함수가 선형</translation>
    </message>
    <message>
        <source>Aligns the corner pixels (interpolating modes)</source>
        <translation>모서리 픽셀을 맞춤 (보간 모드)</translation>
    </message>
    <message>
        <source>Axes to reduce, counting the batch axis as 0 (negative counts from the end)</source>
        <translation>축소할 축 (배치 축을 0으로 셈, 음수는 끝에서부터 셈)</translation>
    </message>
    <message>
        <source>Axis (counting the batch axis as 0)</source>
        <translation>축 (배치 축을 0으로 셈)</translation>
    </message>
    <message>
        <source>Axis to remove (counting the batch axis as 0)</source>
        <translation>제거할 축 (배치 축을 0으로 셈)</translation>
    </message>
    <message>
        <source>Axis to split (counting the batch axis as 0)</source>
        <translation>나눌 축 (배치 축을 0으로 셈)</translation>
    </message>
    <message>
        <source>Before and after each padded axis, last axis first: [left, right, top, bottom]</source>
        <translation>패딩할 각 축의 앞뒤 패딩, 마지막 축부터: [left, right, top, bottom]</translation>
    </message>
    <message>
        <source>End index, excluded (negative counts from the end)</source>
        <translation>끝 인덱스, 그 위치는 제외 (음수는 끝에서부터 셈)</translation>
    </message>
    <message>
        <source>Fill value</source>
        <translation>채울 값</translation>
    </message>
    <message>
        <source>Fill value (constant mode)</source>
        <translation>채울 값 (constant 모드)</translation>
    </message>
    <message>
        <source>First axis (counting the batch axis as 0)</source>
        <translation>첫 번째 축 (배치 축을 0으로 셈)</translation>
    </message>
    <message>
        <source>First index (negative counts from the end)</source>
        <translation>첫 인덱스 (음수는 끝에서부터 셈)</translation>
    </message>
    <message>
        <source>How the padding is filled</source>
        <translation>패딩을 채우는 방식</translation>
    </message>
    <message>
        <source>How the padding is filled (other than zeros: a padded copy is made first)</source>
        <translation>패딩을 채우는 방식 (zeros 이외의 모드는 먼저 패딩된 복사본을 만듦)</translation>
    </message>
    <message>
        <source>Index (negative counts from the end)</source>
        <translation>인덱스 (음수는 끝에서부터 셈)</translation>
    </message>
    <message>
        <source>Initial slope</source>
        <translation>초기 기울기</translation>
    </message>
    <message>
        <source>Interpolation</source>
        <translation>보간 방식</translation>
    </message>
    <message>
        <source>Keeps the reduced axes with size 1</source>
        <translation>축소한 축을 크기 1로 유지</translation>
    </message>
    <message>
        <source>Learnable scale and shift per channel</source>
        <translation>채널별 학습 가능한 스케일과 이동</translation>
    </message>
    <message>
        <source>Learned slopes: 1, or one per channel</source>
        <translation>학습되는 기울기 수: 1 또는 채널마다 하나</translation>
    </message>
    <message>
        <source>Lower bound</source>
        <translation>하한</translation>
    </message>
    <message>
        <source>Multiplier of every spatial axis (the output is floor(input x scale_factor))</source>
        <translation>모든 공간 축의 배율 (출력은 floor(input x scale_factor))</translation>
    </message>
    <message>
        <source>Number of elements</source>
        <translation>원소 수</translation>
    </message>
    <message>
        <source>Only zeros: PyTorch&apos;s transposed convolutions support no other</source>
        <translation>zeros만 가능: PyTorch의 전치 합성곱은 다른 모드를 지원하지 않음</translation>
    </message>
    <message>
        <source>Output size</source>
        <translation>출력 크기</translation>
    </message>
    <message>
        <source>Output size of the spatial axes (one size for all, or one per axis)</source>
        <translation>공간 축의 출력 크기 (모든 축에 하나 또는 축마다 하나)</translation>
    </message>
    <message>
        <source>Padding on each side</source>
        <translation>양쪽 각각의 패딩</translation>
    </message>
    <message>
        <source>Padding on every side, or [left, right, top, bottom, front, back]</source>
        <translation>모든 쪽에 같은 패딩 또는 [left, right, top, bottom, front, back]</translation>
    </message>
    <message>
        <source>Padding on every side, or [left, right, top, bottom]</source>
        <translation>모든 쪽에 같은 패딩 또는 [left, right, top, bottom]</translation>
    </message>
    <message>
        <source>Padding on every side, or [left, right]</source>
        <translation>모든 쪽에 같은 패딩 또는 [left, right]</translation>
    </message>
    <message>
        <source>Position of the new axis (counting the batch axis as 0)</source>
        <translation>새 축의 위치 (배치 축을 0으로 셈)</translation>
    </message>
    <message>
        <source>Recomputes the scale from the output size (sizes are the same)</source>
        <translation>출력 크기로 배율을 다시 계산 (크기는 같음)</translation>
    </message>
    <message>
        <source>Scale of the negative side (not 0)</source>
        <translation>음수 쪽의 배율 (0이면 안 됨)</translation>
    </message>
    <message>
        <source>Second axis (counting the batch axis as 0)</source>
        <translation>두 번째 축 (배치 축을 0으로 셈)</translation>
    </message>
    <message>
        <source>Shape of a learned tensor put before the inputs, per sample (no batch axis): [1, 768] for a class token</source>
        <translation>입력 앞에 놓는 학습되는 텐서의 형태, 샘플당 (배치 축 없음): 클래스 토큰이면 [1, 768]</translation>
    </message>
    <message>
        <source>Shape of a learned tensor used as the next operand, per sample (no batch axis): [384] for a layer scale, [197, 384] for a position table, [C, 1, 1] per channel</source>
        <translation>다음 피연산자로 쓰는 학습되는 텐서의 형태, 샘플당 (배치 축 없음): 레이어 스케일은 [384], 위치 테이블은 [197, 384], 채널별이면 [C, 1, 1]</translation>
    </message>
    <message>
        <source>Sharpness</source>
        <translation>날카로움</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>간격</translation>
    </message>
    <message>
        <source>The factor r</source>
        <translation>배율 r</translation>
    </message>
    <message>
        <source>The new order of the axes, counting the batch axis as 0: [0, 2, 3, 1] for channels last, [1, 0, 2] for sequence-first</source>
        <translation>축의 새 순서 (배치 축을 0으로 셈): 채널 마지막(channels last)이면 [0, 2, 3, 1], 시퀀스 우선(sequence-first)이면 [1, 0, 2]</translation>
    </message>
    <message>
        <source>The new shape of one sample (no batch axis); -1 keeps an axis</source>
        <translation>샘플 하나의 새 형태 (배치 축 없음). -1은 그 축을 그대로 둠</translation>
    </message>
    <message>
        <source>The new shape of one sample (no batch axis); one -1 is inferred</source>
        <translation>샘플 하나의 새 형태 (배치 축 없음). -1 하나는 추론됨</translation>
    </message>
    <message>
        <source>Where the batch axis goes among the result&apos;s axes; the values of each sample before it must be as many as before the input&apos;s</source>
        <translation>결과의 축 중 배치 축이 놓일 위치. 그 앞에 있는 샘플별 값의 개수는 입력에서 배치 축 앞의 개수와 같아야 함</translation>
    </message>
    <message>
        <source>The power (a number)</source>
        <translation>지수 (숫자)</translation>
    </message>
    <message>
        <source>The sizes it splits into; one -1 is inferred</source>
        <translation>나뉠 크기들. -1 하나는 추론됨</translation>
    </message>
    <message>
        <source>Upper bound</source>
        <translation>상한</translation>
    </message>
    <message>
        <source>Value the negative side approaches</source>
        <translation>음수 쪽이 다가가는 값</translation>
    </message>
    <message>
        <source>every axis of size 1</source>
        <translation>크기가 1인 모든 축</translation>
    </message>
    <message>
        <source>where the input has it</source>
        <translation>입력에서와 같은 위치</translation>
    </message>
    <message>
        <source>false</source>
        <translation>false</translation>
    </message>
    <message>
        <source>from scale_factor</source>
        <translation>scale_factor로 계산</translation>
    </message>
    <message>
        <source>from size</source>
        <translation>size로 계산</translation>
    </message>
    <message>
        <source>the end of the axis</source>
        <translation>축의 끝</translation>
    </message>
    <message>
        <source>An operator Headroom does not model: keeps its inputs, makes one new tensor</source>
        <translation>Headroom이 모델링하지 않는 연산자: 입력을 보관하고 새 텐서 하나를 만듦</translation>
    </message>
    <message>
        <source>&quot;float&quot;: the type of its floating-point inputs (or the parameter type), following the precision; otherwise a fixed element type</source>
        <translation>&quot;float&quot;: 부동소수점 입력의 타입 (또는 파라미터 타입), 정밀도를 따름; 그 외에는 고정된 원소 타입</translation>
    </message>
    <message>
        <source>Keeps every input for backward (the assumption)</source>
        <translation>역전파를 위해 모든 입력을 보관 (가정)</translation>
    </message>
    <message>
        <source>The operator&apos;s name, shown in the warning</source>
        <translation>연산자 이름, 경고에 표시됨</translation>
    </message>
    <message>
        <source>The output&apos;s shape per sample (without the batch axis)</source>
        <translation>샘플당 출력 형태 (배치 축 제외)</translation>
    </message>
    <message>
        <source>Trainable parameter elements the operator holds</source>
        <translation>연산자가 가진 학습 가능한 파라미터 원소 수</translation>
    </message>
    <message>
        <source>Why no exact layer models it</source>
        <translation>정확히 표현하는 레이어가 없는 이유</translation>
    </message>
    <message>
        <source>torchvision&apos;s AlexNet (torchvision.models.alexnet, the &quot;one weird trick&quot; single-GPU variant of Krizhevsky et al. 2012) for 224x224 ImageNet images: 61,100,840 parameters.</source>
        <translation>torchvision의 AlexNet(torchvision.models.alexnet, Krizhevsky 외 2012 네트워크의 “one weird trick” 단일 GPU 변형), 224x224 ImageNet 이미지용: 매개변수 61,100,840개.</translation>
    </message>
    <message>
        <source>A BERT-base-style encoder (Devlin et al. 2018; 12 post-norm blocks, d=768, 12 heads, 512 tokens) built from PyTorch TransformerEncoderLayers, ending in a token-level output layer tied to the word embedding, 108,920,634 parameters: unlike Hugging Face&apos;s BertForMaskedLM (109,514,298) it has no token-type embeddings and no MLM transform (dense + GELU + LayerNorm) before the decoder, and like it no pooler.</source>
        <translation>BERT-base 방식 인코더(Devlin 외 2018, 후처리 정규화 블록 12개, d=768, 헤드 12개, 토큰 512개)로, PyTorch TransformerEncoderLayer로 구성되고 단어 임베딩과 가중치를 공유하는 토큰 단위 출력층으로 끝나며 매개변수는 108,920,634개입니다. Hugging Face의 BertForMaskedLM(109,514,298)과 달리 토큰 유형 임베딩이 없고 디코더 앞의 MLM 변환(dense + GELU + LayerNorm)도 없으며, 그와 마찬가지로 pooler는 없습니다.</translation>
    </message>
    <message>
        <source>A small VGG-style CNN reading 5-character captchas (62 classes per character: digits and both cases) from 180x50 greyscale images, modelled on the network of a well-known Q&amp;A on mini-batch memory (532,752 activations, 19,072,984 parameters, batch 128) whose layers were not published: this natural design has 19,079,462 parameters (0.03% more), its 5 x 62 character outputs forming one 310-way layer.</source>
        <translation>180x50 흑백 이미지에서 5자리 캡차(문자당 62개 클래스: 숫자와 대소문자)를 읽는 작은 VGG 방식 CNN으로, 미니배치 메모리에 관한 잘 알려진 Q&amp;A의 네트워크(활성값 532,752개, 매개변수 19,072,984개, 배치 128)를 본떴습니다. 그 네트워크의 층 구성은 공개되지 않았으며, 이 자연스러운 설계는 매개변수가 19,079,462개(0.03% 많음)이고 5 x 62개의 문자 출력이 하나의 310갈래 층을 이룹니다.</translation>
    </message>
    <message>
        <source>A GPT-2-small-style decoder (Radford et al. 2019; 12 pre-norm causal blocks, d=768, 12 heads, 1024-token context) built from PyTorch TransformerEncoderLayers with the LM head tied to the token embedding: 124,439,808 parameters, as Hugging Face&apos;s gpt2, with exact GELU in place of GPT-2&apos;s tanh approximation.</source>
        <translation>GPT-2 small 방식 디코더(Radford 외 2019, 사전 정규화 인과 블록 12개, d=768, 헤드 12개, 1024토큰 문맥)로, PyTorch TransformerEncoderLayer로 구성되고 LM 헤드가 토큰 임베딩과 가중치를 공유합니다. 매개변수는 Hugging Face의 gpt2와 같은 124,439,808개이며, GPT-2의 tanh 근사 대신 정확한 GELU를 씁니다.</translation>
    </message>
    <message>
        <source>LeCun et al.&apos;s 1998 LeNet-5 for 32x32 digit images (MNIST padded), in the common modern form with ReLU and max pooling instead of tanh and subsampling: 61,706 parameters.</source>
        <translation>LeCun 외의 1998년 LeNet-5로, 32x32 숫자 이미지(패딩한 MNIST)용이며 tanh와 서브샘플링 대신 ReLU와 최대 풀링을 쓰는 흔한 현대식 형태입니다. 매개변수 61,706개.</translation>
    </message>
    <message>
        <source>torchvision&apos;s MobileNetV2 (torchvision.models.mobilenet_v2, Sandler et al. 2018, width 1.0) for 224x224 ImageNet images: inverted residual blocks with depthwise 3x3 convs and ReLU6, 3,504,872 parameters.</source>
        <translation>torchvision의 MobileNetV2(torchvision.models.mobilenet_v2, Sandler 외 2018, 너비 1.0), 224x224 ImageNet 이미지용: 깊이별 3x3 합성곱과 ReLU6로 된 역잔차 블록, 매개변수 3,504,872개.</translation>
    </message>
    <message>
        <source>torchvision&apos;s ResNet-18 (torchvision.models.resnet18, He et al. 2015, BasicBlocks [2, 2, 2, 2]) for 224x224 ImageNet images, 11,689,512 parameters; each stage&apos;s first, downsampling block is written out as layerN.0 and its remaining blocks repeat as layerN.rest (torchvision&apos;s layerN.1 onwards).</source>
        <translation>torchvision의 ResNet-18(torchvision.models.resnet18, He 외 2015, BasicBlock [2, 2, 2, 2]), 224x224 ImageNet 이미지용, 매개변수 11,689,512개. 각 단계의 첫 다운샘플링 블록은 layerN.0으로 따로 쓰고, 나머지 블록은 layerN.rest로 반복합니다(torchvision의 layerN.1부터).</translation>
    </message>
    <message>
        <source>torchvision&apos;s ResNet-50 (torchvision.models.resnet50, He et al. 2015, v1.5 Bottlenecks [3, 4, 6, 3] with the stride on the 3x3 conv) for 224x224 ImageNet images, 25,557,032 parameters; each stage&apos;s first, downsampling block is written out as layerN.0 and its remaining blocks repeat as layerN.rest (torchvision&apos;s layerN.1 onwards).</source>
        <translation>torchvision의 ResNet-50(torchvision.models.resnet50, He 외 2015, 3x3 합성곱에 스트라이드를 둔 v1.5 Bottleneck [3, 4, 6, 3]), 224x224 ImageNet 이미지용, 매개변수 25,557,032개. 각 단계의 첫 다운샘플링 블록은 layerN.0으로 따로 쓰고, 나머지 블록은 layerN.rest로 반복합니다(torchvision의 layerN.1부터).</translation>
    </message>
    <message>
        <source>torchvision&apos;s VGG-16 without batch norm (torchvision.models.vgg16, configuration D of Simonyan &amp; Zisserman 2014) for 224x224 ImageNet images: 138,357,544 parameters.</source>
        <translation>배치 정규화가 없는 torchvision의 VGG-16(torchvision.models.vgg16, Simonyan &amp; Zisserman 2014의 구성 D), 224x224 ImageNet 이미지용: 매개변수 138,357,544개.</translation>
    </message>
    <message>
        <source>Calibration (measured excess)</source>
        <translation>보정 (측정된 초과분)</translation>
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
        <translation>인터리브 1F1B</translation>
    </message>
    <message>
        <source>Zero bubble (ZB-H1)</source>
        <translation>제로 버블(ZB-H1)</translation>
    </message>
    <message>
        <source>Ring attention</source>
        <translation>링 어텐션</translation>
    </message>
    <message>
        <source>All-to-all (Ulysses)</source>
        <translation>All-to-all(Ulysses)</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>체크포인트</translation>
    </message>
    <message>
        <source>All saved activations</source>
        <translation>저장된 모든 활성값</translation>
    </message>
    <message>
        <source>memory snapshot (pickle)</source>
        <translation>메모리 스냅샷(pickle)</translation>
    </message>
    <message>
        <source>memory snapshot (JSON)</source>
        <translation>메모리 스냅샷(JSON)</translation>
    </message>
    <message>
        <source>memory snapshot (memory_viz page)</source>
        <translation>메모리 스냅샷(memory_viz 페이지)</translation>
    </message>
    <message>
        <source>profiler memory timeline</source>
        <translation>프로파일러 메모리 타임라인</translation>
    </message>
    <message>
        <source>profiler Chrome trace</source>
        <translation>프로파일러 Chrome 트레이스</translation>
    </message>
    <message>
        <source>Activations (+input)</source>
        <translation>활성화(입력 포함)</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>작업 공간</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>임시 텐서</translation>
    </message>
    <message>
        <source>Unattributed</source>
        <translation>미분류</translation>
    </message>
    <message>
        <source>the frames did not show the steps: found by the allocation pattern</source>
        <translation>프레임에 스텝이 드러나지 않아 할당 패턴으로 찾았습니다</translation>
    </message>
    <message>
        <source>a memory timeline counts the tensors the profiler saw (no block rounding, no cached memory): reserved bytes are not known</source>
        <translation>메모리 타임라인은 프로파일러가 본 텐서만 셉니다(블록 올림과 캐시된 메모리 제외): 예약 바이트는 알 수 없습니다</translation>
    </message>
    <message>
        <source>the trace has memory events for the CPU only: profile a CUDA run with activities=[ProfilerActivity.CUDA] and profile_memory=True</source>
        <translation>이 트레이스에는 CPU 메모리 이벤트만 있습니다: activities=[ProfilerActivity.CUDA]와 profile_memory=True로 CUDA 실행을 프로파일링하세요</translation>
    </message>
    <message>
        <source>no trace for any device: only the state at the snapshot&apos;s moment is known (record with torch.cuda.memory._record_memory_history() before the steps)</source>
        <translation>어느 장치의 트레이스도 없어 스냅샷 시점의 상태만 알 수 있습니다(스텝 전에 torch.cuda.memory._record_memory_history()로 기록하세요)</translation>
    </message>
    <message>
        <source>no segments: the allocator&apos;s state at the snapshot is unknown</source>
        <translation>세그먼트 없음: 스냅샷 시점의 할당자 상태를 알 수 없습니다</translation>
    </message>
    <message>
        <source>no device_traces: the memory history was not recorded</source>
        <translation>device_traces 없음: 메모리 기록이 남지 않았습니다</translation>
    </message>
    <message>
        <source>no allocator_settings (files before PyTorch 2.4 lack them): the allocator&apos;s defaults are assumed</source>
        <translation>allocator_settings 없음(PyTorch 2.4 이전 파일에는 없음): 할당자 기본값을 가정합니다</translation>
    </message>
    <message>
        <source>trace entries without time_us (PyTorch before 2.1): times are the entries&apos; order</source>
        <translation>time_us 없는 트레이스 항목(PyTorch 2.1 이전): 항목 순서를 시간으로 씁니다</translation>
    </message>
    <message>
        <source>With gradient accumulation the plan&apos;s micro-batches share the forward and backward intervals of the chart.</source>
        <translation>그래디언트 누적을 쓰면 계획의 마이크로배치들이 차트의 순전파·역전파 구간을 함께 씁니다.</translation>
    </message>
    <message>
        <source>The run shows only its first step: the steady step is compared with it.</source>
        <translation>이 실행에는 첫 스텝만 있습니다: 정상 스텝을 그것과 비교합니다.</translation>
    </message>
    <message>
        <source>The run&apos;s steady step lacks a phase: the phases found are compared.</source>
        <translation>이 실행의 정상 스텝에 빠진 단계가 있습니다: 찾은 단계만 비교합니다.</translation>
    </message>
    <message>
        <source>The plan has no allocation trace: the run&apos;s blocks are not attributed.</source>
        <translation>계획에 할당 트레이스가 없습니다: 실행의 블록을 귀속하지 않습니다.</translation>
    </message>
    <message>
        <source>The run&apos;s components are the profiler&apos;s categories at its peak.</source>
        <translation>실행의 구성 요소는 최대 시점의 프로파일러 범주입니다.</translation>
    </message>
    <message>
        <source>The run&apos;s file shows no blocks: its memory is not split by component.</source>
        <translation>실행 파일에 블록이 없습니다: 메모리를 구성 요소별로 나누지 않습니다.</translation>
    </message>
    <message>
        <source>No calibration is proposed: the run&apos;s bytes are not absolute.</source>
        <translation>보정을 제안하지 않습니다: 실행의 바이트가 절대값이 아닙니다.</translation>
    </message>
    <message>
        <source>No calibration is proposed: the run shows no steady training step to read it from.</source>
        <translation>보정을 제안하지 않습니다: 실행에 읽어 올 정상 학습 스텝이 없습니다.</translation>
    </message>
    <message>
        <source>a raw memory timeline (one event per tensor): its events were added up per category, as export_memory_timeline does</source>
        <translation>원시 메모리 타임라인(텐서마다 이벤트 하나): export_memory_timeline처럼 이벤트를 범주별로 합산했습니다</translation>
    </message>
</context>
<context>
    <name>headroom::ui::CustomGpuDialog</name>
    <message>
        <source>Custom GPU</source>
        <translation>사용자 정의 GPU</translation>
    </message>
    <message>
        <source>My GPU</source>
        <translation>내 GPU</translation>
    </message>
    <message>
        <source>The memory plan needs only the memory. The figures below, from the vendor&apos;s specifications, give the step time and samples per second; leave a figure you do not have at “Not known”.</source>
        <translation>메모리 계획에는 메모리 크기만 필요합니다. 아래 수치는 제조사 사양에서 가져오며 스텝 시간과 초당 샘플 수를 계산합니다. 모르는 수치는 “알 수 없음”으로 두십시오.</translation>
    </message>
    <message>
        <source>The name in the GPU list; a GPU of the same name is replaced</source>
        <translation>GPU 목록에 표시되는 이름입니다. 같은 이름의 GPU는 대체됩니다</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>The GPU&apos;s memory as the vendor states it: 24 GB of GDDR6X is 24 GiB</source>
        <translation>제조사가 밝힌 GPU 메모리: GDDR6X 24 GB는 24 GiB입니다</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>이름:</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>메모리:</translation>
    </message>
    <message>
        <source>Not known</source>
        <translation>알 수 없음</translation>
    </message>
    <message>
        <source>Step time (optional)</source>
        <translation>스텝 시간(선택)</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source>Memory bandwidth in GB/s (RTX 4090: 1,008): a layer that moves more bytes than it computes takes as long as its bytes need. Not known: that check is skipped</source>
        <translation>메모리 대역폭(GB/s, RTX 4090: 1,008): 계산보다 옮기는 바이트가 많은 레이어는 그 바이트를 옮기는 데 필요한 시간만큼 걸립니다. 알 수 없음: 이 검사를 건너뜁니다</translation>
    </message>
    <message>
        <source> TFLOPS</source>
        <translation> TFLOPS</translation>
    </message>
    <message>
        <source>Peak dense FP32 TFLOPS (RTX 4090: 82.58): the step time in fp32. Not known: no step time in fp32</source>
        <translation>FP32 밀집 연산 최대 TFLOPS(RTX 4090: 82.58): fp32의 스텝 시간에 쓰입니다. 알 수 없음: fp32에서는 스텝 시간이 없습니다</translation>
    </message>
    <message>
        <source>Peak dense FP16 TFLOPS, on tensor cores where the GPU has them (RTX 4090: 165.2): the step time in fp16 and mixed fp16. Not known: no step time in fp16</source>
        <translation>FP16 밀집 연산 최대 TFLOPS, 텐서 코어가 있으면 텐서 코어 기준(RTX 4090: 165.2): fp16과 fp16 혼합 정밀도의 스텝 시간에 쓰입니다. 알 수 없음: fp16에서는 스텝 시간이 없습니다</translation>
    </message>
    <message>
        <source>Peak dense BF16 TFLOPS (RTX 4090: 165.2): the step time in bf16 and mixed bf16. Not known, or a GPU without bfloat16: no step time in bf16</source>
        <translation>BF16 밀집 연산 최대 TFLOPS(RTX 4090: 165.2): bf16과 bf16 혼합 정밀도의 스텝 시간에 쓰입니다. 알 수 없거나 bfloat16을 지원하지 않는 GPU: bf16에서는 스텝 시간이 없습니다</translation>
    </message>
    <message>
        <source>Memory bandwidth:</source>
        <translation>메모리 대역폭:</translation>
    </message>
    <message>
        <source>FP32:</source>
        <translation>FP32:</translation>
    </message>
    <message>
        <source>FP16:</source>
        <translation>FP16:</translation>
    </message>
    <message>
        <source>BF16:</source>
        <translation>BF16:</translation>
    </message>
    <message>
        <source>Several GPUs (optional)</source>
        <translation>여러 GPU(선택)</translation>
    </message>
    <message>
        <source>Not known (the PCIe rate)</source>
        <translation>알 수 없음(PCIe 속도)</translation>
    </message>
    <message>
        <source>GPU-to-GPU bandwidth within a node, GB/s each way: NVLink&apos;s per-GPU figure (H100 SXM: 900 GB/s both ways, so 450), else the PCIe x16 rate. Not known: the PCIe generation&apos;s x16 rate. Changes the step time with several GPUs, not memory</source>
        <translation>노드 안 GPU 간 대역폭, 방향당 GB/s: NVLink의 GPU당 수치(H100 SXM: 양방향 900 GB/s이므로 450), 없으면 PCIe x16 속도. 알 수 없음: PCIe 세대의 x16 속도. 여러 GPU일 때 스텝 시간을 바꾸며 메모리는 바꾸지 않습니다</translation>
    </message>
    <message>
        <source>Not known (4.0 assumed)</source>
        <translation>알 수 없음(4.0으로 가정)</translation>
    </message>
    <message>
        <source>%1.0 (x16: %2 GB/s each way)</source>
        <translation>%1.0 (x16: 방향당 %2 GB/s)</translation>
    </message>
    <message>
        <source>The PCIe generation of the GPU&apos;s host link: its x16 rate is the link between GPUs when that is not known. Not known: PCIe 4.0</source>
        <translation>GPU 호스트 연결의 PCIe 세대: GPU 간 대역폭을 모를 때 그 x16 속도를 GPU 간 연결로 씁니다. 알 수 없음: PCIe 4.0</translation>
    </message>
    <message>
        <source>GPU-to-GPU link:</source>
        <translation>GPU 간 연결:</translation>
    </message>
    <message>
        <source>PCIe generation:</source>
        <translation>PCIe 세대:</translation>
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
        <source>Sequence Length</source>
        <translation>시퀀스 길이</translation>
    </message>
    <message>
        <source>%1 takes sequences of up to %2 tokens. Training usually runs at fewer: Hugging Face&apos;s run_clm.py and TRL&apos;s SFTTrainer use %3 unless told otherwise, and memory grows with the length.</source>
        <translation>%1은(는) 최대 %2 토큰의 시퀀스를 받습니다. 학습은 보통 이보다 짧게 합니다. Hugging Face의 run_clm.py와 TRL의 SFTTrainer는 따로 지정하지 않으면 %3을(를) 쓰며, 메모리는 길이에 따라 늘어납니다.</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 토큰</translation>
    </message>
    <message>
        <source>Train at:</source>
        <translation>학습 길이:</translation>
    </message>
    <message>
        <source>Measured Run</source>
        <translation>측정한 실행</translation>
    </message>
    <message>
        <source>%1 does not record the batch size or the precision it was trained at. Say which, so the plan is compared at the same set-up; if you do not know, the plan&apos;s are assumed and the comparison says so.</source>
        <translation>%1에는 학습할 때의 배치 크기와 정밀도가 기록되어 있지 않습니다. 같은 설정에서 계획과 비교하도록 알려 주세요. 모르면 계획의 값을 가정하고, 비교 결과에 그렇게 표시합니다.</translation>
    </message>
    <message>
        <source>Micro-batch of the run:</source>
        <translation>실행의 마이크로 배치:</translation>
    </message>
    <message>
        <source>Precision of the run:</source>
        <translation>실행의 정밀도:</translation>
    </message>
    <message>
        <source>Not Known: Assume the Plan&apos;s</source>
        <translation>모름: 계획의 값으로 가정</translation>
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
        <translation>레이어 고정</translation>
    </message>
    <message>
        <source>Unfreeze layer</source>
        <translation>레이어 고정 해제</translation>
    </message>
    <message>
        <source>Checkpoint block</source>
        <translation>블록 체크포인트</translation>
    </message>
    <message>
        <source>Stop checkpointing block</source>
        <translation>블록 체크포인트 해제</translation>
    </message>
    <message>
        <source>Select the layers to checkpoint.</source>
        <translation>체크포인트할 레이어를 선택하세요.</translation>
    </message>
    <message>
        <source>Only top-level layers can be checkpointed as a block.</source>
        <translation>최상위 레이어만 하나의 블록으로 체크포인트할 수 있습니다.</translation>
    </message>
    <message>
        <source>Cannot checkpoint these layers as one block: &quot;%1&quot; after them uses &quot;%2&quot; inside it.</source>
        <translation>이 레이어들을 하나의 블록으로 체크포인트할 수 없습니다. 뒤에 있는 &quot;%1&quot;이(가) 블록 안의 &quot;%2&quot;을(를) 사용합니다.</translation>
    </message>
    <message>
        <source>Checkpoint selection</source>
        <translation>선택 영역 체크포인트</translation>
    </message>
    <message>
        <source>Change accumulation steps</source>
        <translation>누적 스텝 변경</translation>
    </message>
    <message>
        <source>Change parallelism</source>
        <translation>병렬화 변경</translation>
    </message>
    <message>
        <source>Change GPU count</source>
        <translation>GPU 수 변경</translation>
    </message>
    <message>
        <source>Change tensor parallelism</source>
        <translation>텐서 병렬 변경</translation>
    </message>
    <message>
        <source>Change sharding</source>
        <translation>샤딩 변경</translation>
    </message>
    <message>
        <source>Offload optimizer state</source>
        <translation>옵티마이저 상태 오프로드</translation>
    </message>
    <message>
        <source>Keep optimizer state on the GPU</source>
        <translation>옵티마이저 상태를 GPU에 유지</translation>
    </message>
    <message>
        <source>Use an 8-bit optimizer</source>
        <translation>8비트 옵티마이저 사용</translation>
    </message>
    <message>
        <source>Use a 32-bit optimizer</source>
        <translation>32비트 옵티마이저 사용</translation>
    </message>
    <message>
        <source>Change assumed utilisation</source>
        <translation>가정 활용률 변경</translation>
    </message>
    <message>
        <source>Change checkpointing</source>
        <translation>체크포인팅 변경</translation>
    </message>
    <message>
        <source>Change attention implementation</source>
        <translation>어텐션 구현 변경</translation>
    </message>
    <message>
        <source>Change LoRA</source>
        <translation>LoRA 변경</translation>
    </message>
    <message>
        <source>Change sequence length</source>
        <translation>시퀀스 길이 변경</translation>
    </message>
    <message>
        <source>Select the layers to wrap.</source>
        <translation>감쌀 레이어를 선택하세요.</translation>
    </message>
    <message>
        <source>Cannot wrap these layers in a residual block: they change the shape from %1 to %2, and a residual connection adds the block&apos;s input to its output.</source>
        <translation>이 레이어들을 잔차 블록으로 감쌀 수 없습니다. 형태가 %1에서 %2로 바뀌는데, 잔차 연결은 블록의 입력을 출력에 더합니다.</translation>
    </message>
    <message>
        <source>Cannot wrap these layers in a residual block: their output cannot be added to their input.</source>
        <translation>이 레이어들을 잔차 블록으로 감쌀 수 없습니다. 출력을 입력에 더할 수 없습니다.</translation>
    </message>
    <message>
        <source>Change MoE imbalance</source>
        <translation>MoE 불균형 변경</translation>
    </message>
    <message>
        <source>Change optimizer implementation</source>
        <translation>옵티마이저 구현 방식 변경</translation>
    </message>
    <message>
        <source>Use expandable segments</source>
        <translation>확장 가능한 세그먼트 사용</translation>
    </message>
    <message>
        <source>Use fixed segments</source>
        <translation>고정 세그먼트 사용</translation>
    </message>
    <message>
        <source>Apply calibration</source>
        <translation>보정 적용</translation>
    </message>
    <message>
        <source>Remove calibration</source>
        <translation>보정 제거</translation>
    </message>
    <message>
        <source>Use sequence parallelism</source>
        <translation>시퀀스 병렬 사용</translation>
    </message>
    <message>
        <source>Stop sequence parallelism</source>
        <translation>시퀀스 병렬 중지</translation>
    </message>
    <message>
        <source>Change pipeline stages</source>
        <translation>파이프라인 스테이지 변경</translation>
    </message>
    <message>
        <source>Change pipeline schedule</source>
        <translation>파이프라인 스케줄 변경</translation>
    </message>
    <message>
        <source>Change virtual stages</source>
        <translation>가상 스테이지 변경</translation>
    </message>
    <message>
        <source>Change layers per stage</source>
        <translation>스테이지당 레이어 변경</translation>
    </message>
    <message>
        <source>Change context parallelism</source>
        <translation>컨텍스트 병렬 변경</translation>
    </message>
    <message>
        <source>Change expert parallelism</source>
        <translation>전문가 병렬 변경</translation>
    </message>
    <message>
        <source>Change activation offload</source>
        <translation>활성값 오프로드 변경</translation>
    </message>
    <message>
        <source>Change GPUs per node</source>
        <translation>노드당 GPU 수 변경</translation>
    </message>
    <message>
        <source>Change bandwidth between nodes</source>
        <translation>노드 간 대역폭 변경</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ElidedLabel</name>
    <message>
        <source>Click to show one line each</source>
        <translation>클릭하면 한 줄씩 표시합니다</translation>
    </message>
    <message>
        <source>Click to show in full</source>
        <translation>클릭하면 전체를 표시합니다</translation>
    </message>
</context>
<context>
    <name>headroom::ui::EntryNote</name>
    <message>
        <source>“%1” cannot be typed here, and “%2” is not allowed: %3 takes %4.</source>
        <translation>여기에는 “%1”을(를) 입력할 수 없고 “%2”도 허용되지 않습니다. %3의 허용 값: %4.</translation>
    </message>
    <message>
        <source>“%1” cannot be typed here: %2 takes %3.</source>
        <translation>여기에는 “%1”을(를) 입력할 수 없습니다. %2의 허용 값: %3.</translation>
    </message>
    <message>
        <source>“%1” is not allowed: %2 takes %3.</source>
        <translation>“%1”은(는) 허용되지 않습니다. %2의 허용 값: %3.</translation>
    </message>
    <message>
        <source>“%1” is not allowed, so %2 stays %3.</source>
        <translation>“%1”은(는) 허용되지 않으므로 %2은(는) %3(으)로 유지됩니다.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ErrorText</name>
    <message>
        <source>input %1</source>
        <translation>입력 %1</translation>
    </message>
    <message>
        <source>%1 element %2</source>
        <translation>%1의 %2번째 원소</translation>
    </message>
    <message>
        <source>input %1 of layer %2</source>
        <translation>레이어 %2의 입력 %1</translation>
    </message>
    <message>
        <source>the layers of block %1</source>
        <translation>블록 %1의 레이어</translation>
    </message>
    <message>
        <source>%1 element %2 of layer %3</source>
        <translation>레이어 %3의 %1 중 %2번째 원소</translation>
    </message>
    <message>
        <source>%1 of layer %2</source>
        <translation>레이어 %2의 %1</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>레이어 %1</translation>
    </message>
    <message>
        <source>dimension %1 of the input shape</source>
        <translation>입력 형태의 %1번째 차원</translation>
    </message>
    <message>
        <source>LoRA target %1</source>
        <translation>LoRA 대상 %1</translation>
    </message>
    <message>
        <source>Layer %1 (%2): %3</source>
        <translation>레이어 %1 (%2): %3</translation>
    </message>
    <message>
        <source>Layer %1: %2</source>
        <translation>레이어 %1: %2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::GpuCompareView</name>
    <message>
        <source>Samples per optimizer step the GPU must reach</source>
        <translation>GPU가 옵티마이저 스텝마다 도달해야 하는 샘플 수</translation>
    </message>
    <message>
        <source>&amp;Target effective batch:</source>
        <translation>목표 유효 배치(&amp;T):</translation>
    </message>
    <message>
        <source>Cannot compare: %1</source>
        <translation>비교할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>No GPU listed reaches the target with this set-up: Make it fit finds set-ups that do.</source>
        <translation>이 설정으로 목표에 도달하는 GPU가 목록에 없습니다: 맞춤 설정 찾기가 도달하는 설정을 찾아 줍니다.</translation>
    </message>
    <message>
        <source>The smallest GPU that reaches the target: %1.</source>
        <translation>목표에 도달하는 가장 작은 GPU: %1.</translation>
    </message>
    <message>
        <source>Same as the set-up</source>
        <translation>훈련 설정과 같음</translation>
    </message>
    <message>
        <source>The network is empty: add layers to compare GPUs for it.</source>
        <translation>네트워크가 비어 있습니다. 레이어를 추가해야 GPU를 비교할 수 있습니다.</translation>
    </message>
    <message>
        <source>&amp;Use This GPU</source>
        <translation>이 GPU 사용(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Use %1</source>
        <translation>%1 사용(&amp;U)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::GpuComparisonModel</name>
    <message>
        <source>The GPU with the least memory that reaches the target effective batch</source>
        <translation>목표 유효 배치에 도달하는 메모리가 가장 적은 GPU</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>예</translation>
    </message>
    <message>
        <source>no</source>
        <translation>아니요</translation>
    </message>
    <message>
        <source>%1 (effective %2)</source>
        <translation>%1 (유효 %2)</translation>
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
        <translation>메모리</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>최대 배치</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>스텝 시간</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>샘플/초</translation>
    </message>
    <message>
        <source>The GPU&apos;s memory</source>
        <translation>GPU의 메모리</translation>
    </message>
    <message>
        <source>Peak (batch %1)</source>
        <translation>최대 (배치 %1)</translation>
    </message>
    <message>
        <source>Whether the set-up&apos;s batch, %1, fits this GPU</source>
        <translation>현재 설정의 배치 %1이(가) 이 GPU에 들어가는지</translation>
    </message>
    <message>
        <source>Fits batch %1</source>
        <translation>배치 %1 들어감</translation>
    </message>
    <message>
        <source>The largest micro-batch that fits this GPU</source>
        <translation>이 GPU에 들어가는 가장 큰 마이크로 배치</translation>
    </message>
    <message>
        <source>Whether the largest batch that fits reaches the target effective batch</source>
        <translation>들어가는 가장 큰 배치가 목표 유효 배치에 도달하는지</translation>
    </message>
    <message>
        <source>Reaches target</source>
        <translation>목표 도달</translation>
    </message>
    <message>
        <source>One optimizer step at the set-up&apos;s batch</source>
        <translation>현재 설정의 배치에서 옵티마이저 스텝 하나</translation>
    </message>
    <message>
        <source>Samples per second at the set-up&apos;s batch</source>
        <translation>현재 설정의 배치에서 초당 샘플 수</translation>
    </message>
    <message>
        <source>What the GPU holds at the peak of one training step at the set-up&apos;s batch, %1: what PyTorch&apos;s caching allocator reserves, plus the overhead</source>
        <translation>현재 설정의 배치 %1에서 학습 스텝 하나의 최대치에 GPU가 사용하는 메모리: PyTorch 캐싱 할당자가 예약하는 메모리와 오버헤드</translation>
    </message>
    <message>
        <source>Double-click (or right-click) to use this GPU</source>
        <translation>더블클릭(또는 오른쪽 클릭)하면 이 GPU를 사용합니다</translation>
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
        <source>A GPU of your own: its memory and, if you have them, its speed and links. On a custom GPU, edits it</source>
        <translation>직접 정의하는 GPU: 메모리와, 알고 있다면 속도와 연결 수치. 사용자 정의 GPU에서는 그 GPU를 편집합니다</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LanguageMenu</name>
    <message>
        <source>&amp;Language</source>
        <translation>언어(&amp;L)</translation>
    </message>
    <message>
        <source>System Language</source>
        <translation>시스템 언어</translation>
    </message>
    <message>
        <source>Headroom speaks %1 from its next start.</source>
        <translation>다음 시작부터 Headroom이 %1로 표시됩니다.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::LayerActivationsView</name>
    <message>
        <source>Layer</source>
        <translation>레이어</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>유형</translation>
    </message>
    <message>
        <source>Activations / sample</source>
        <translation>활성화 / 샘플</translation>
    </message>
    <message>
        <source>Click a column to sort by it</source>
        <translation>열을 클릭하면 그 열로 정렬합니다</translation>
    </message>
    <message>
        <source>No layer keeps activations for the backward pass.</source>
        <translation>역전파를 위해 활성화를 보관하는 레이어가 없습니다.</translation>
    </message>
    <message numerus="yes">
        <source>Memory each of the %1 layers keeps per sample for the backward pass (%2 in all). %3 the %n heaviest  %4 the others. Click a column to sort.</source>
        <translation>
            <numerusform>레이어 %1개가 각각 역전파를 위해 샘플당 보관하는 메모리 (전체 %2). %3 가장 무거운 %n개  %4 나머지. 열을 클릭하면 정렬합니다.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2): keeps %3 per sample for the backward pass, %4 of all activations</source>
        <translation>%1 (%2): 역전파를 위해 샘플당 %3 보관, 전체 활성화의 %4</translation>
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
        <translation>선택한 최상위 레이어를 체크포인트 블록에 넣습니다. 역전파에서 활성화를 보관하지 않고 다시 계산합니다</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>체크포인트</translation>
    </message>
    <message>
        <source>Layer %1 is invalid: see its properties below.</source>
        <translation>레이어 %1이(가) 잘못되었습니다. 아래 속성을 보세요.</translation>
    </message>
    <message>
        <source>Layer %1 (%2) is invalid: see its properties below.</source>
        <translation>레이어 %1 (%2)이(가) 잘못되었습니다. 아래 속성을 보세요.</translation>
    </message>
    <message>
        <source>&amp;Freeze</source>
        <translation>고정(&amp;F)</translation>
    </message>
    <message>
        <source>No gradients or optimizer state for the selected layers&apos; parameters</source>
        <translation>선택한 레이어의 파라미터에 그래디언트와 옵티마이저 상태가 없습니다</translation>
    </message>
    <message>
        <source>Freeze layers</source>
        <translation>레이어 고정</translation>
    </message>
    <message>
        <source>Unfreeze layers</source>
        <translation>레이어 고정 해제</translation>
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
        <translation>LoRA +%1</translation>
    </message>
    <message>
        <source>Frozen: no gradients or optimizer state for its parameters</source>
        <translation>고정됨: 파라미터에 그래디언트와 옵티마이저 상태가 없음</translation>
    </message>
    <message>
        <source>Checkpointed: its activations are recomputed in the backward pass</source>
        <translation>체크포인트됨: 활성화를 역전파에서 다시 계산함</translation>
    </message>
    <message>
        <source>LoRA adapters: %1 trainable parameters</source>
        <translation>LoRA 어댑터: 학습 가능한 파라미터 %1개</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>학습</translation>
    </message>
    <message>
        <source>Frozen layers, layers recomputed by activation checkpointing, and LoRA adapter parameters</source>
        <translation>고정된 레이어, 활성화 체크포인팅으로 다시 계산하는 레이어, LoRA 어댑터 파라미터</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Parameters: %1</source>
        <translation>파라미터: %1</translation>
    </message>
    <message>
        <source>%1 per sample kept for the backward pass</source>
        <translation>역전파를 위해 샘플당 %1 보관</translation>
    </message>
    <message>
        <source>Forward %1 + backward %2 per sample</source>
        <translation>샘플당 순전파 %1 + 역전파 %2</translation>
    </message>
    <message>
        <source>Activations
per sample</source>
        <translation>샘플당
활성화</translation>
    </message>
    <message>
        <source>FLOPs
per sample</source>
        <translation>샘플당
FLOPs</translation>
    </message>
    <message>
        <source>Forward + backward floating-point operations per sample (a Repeat block: all its repetitions); checkpoint recomputation is in the summary</source>
        <translation>샘플당 순전파 + 역전파 부동소수점 연산 수 (반복 블록: 모든 반복의 합). 체크포인팅 재계산은 요약에 있습니다</translation>
    </message>
    <message>
        <source>The network is empty: add layers (Add Layer, or Layer &gt; Add Layer) to see how much memory training it takes.</source>
        <translation>네트워크가 비어 있습니다. 레이어를 추가하면(레이어 추가 버튼 또는 레이어 &gt; 레이어 추가) 학습에 드는 메모리를 볼 수 있습니다.</translation>
    </message>
    <message>
        <source>%1: no name in the file, so named by its place in its list counted from 0, as PyTorch names the layers of an nn.Sequential. Messages call it layer %2 (%3).</source>
        <translation>%1: 파일에 이름이 없어 목록에서의 위치(0부터 셈)로 이름을 붙였습니다. PyTorch가 nn.Sequential의 레이어에 이름을 붙이는 방식과 같습니다. 메시지에서는 레이어 %2 (%3)(으)로 부릅니다.</translation>
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
        <translation>모델 (*.json *.onnx);;Headroom 모델 (*.json);;ONNX 모델 (*.onnx);;Hugging Face 설정 (config.json);;모든 파일 (*)</translation>
    </message>
    <message>
        <source>Models to import (*.onnx config.json);;ONNX models (*.onnx);;Hugging Face configs (config.json);;All files (*)</source>
        <translation>가져올 모델 (*.onnx config.json);;ONNX 모델 (*.onnx);;Hugging Face 설정 (config.json);;모든 파일 (*)</translation>
    </message>
    <message>
        <source>&amp;Import...</source>
        <translation>가져오기(&amp;I)...</translation>
    </message>
    <message>
        <source>Opens an ONNX model or a Hugging Face config.json as a new Headroom model</source>
        <translation>ONNX 모델이나 Hugging Face config.json을 새 Headroom 모델로 엽니다</translation>
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
        <translation>%1을(를) 가져왔습니다</translation>
    </message>
    <message>
        <source>%1 is the file the model was imported from: Headroom saves models as .json files and leaves it as it is. Choose another name.</source>
        <translation>%1은(는) 모델을 가져온 원본 파일입니다. Headroom은 모델을 .json 파일로 저장하며 원본은 그대로 둡니다. 다른 이름을 고르세요.</translation>
    </message>
    <message>
        <source>%1 (imported from %2)[*] — Headroom</source>
        <translation>%1 (%2에서 가져옴)[*] — Headroom</translation>
    </message>
    <message>
        <source>&amp;Undo %1</source>
        <translation>%1 실행 취소(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo %1</source>
        <translation>%1 다시 실행(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation>사용자 가이드(&amp;U)</translation>
    </message>
    <message>
        <source>Opens the user guide installed with Headroom</source>
        <translation>Headroom과 함께 설치된 사용자 가이드를 엽니다</translation>
    </message>
    <message>
        <source>%1 in the documentation (Help &gt; User Guide)</source>
        <translation>문서의 %1 (도움말 &gt; 사용자 가이드)</translation>
    </message>
    <message>
        <source>Cannot open the user guide</source>
        <translation>사용자 가이드를 열 수 없습니다</translation>
    </message>
    <message>
        <source>The documentation is not installed next to Headroom (it belongs in %1).</source>
        <translation>Headroom 옆에 문서가 설치되어 있지 않습니다 (%1에 있어야 합니다).</translation>
    </message>
    <message>
        <source>No application could open %1. Open it with a text editor or a Markdown viewer.</source>
        <translation>%1을(를) 열 수 있는 프로그램이 없습니다. 텍스트 편집기나 Markdown 뷰어로 여세요.</translation>
    </message>
    <message>
        <source>The folder %1 does not exist. Choose another folder for %2.</source>
        <translation>폴더 %1이(가) 없습니다. %2을(를) 저장할 다른 폴더를 고르세요.</translation>
    </message>
    <message>
        <source>Make It Fit</source>
        <translation>맞춤 설정 찾기</translation>
    </message>
    <message>
        <source>Compare GPUs</source>
        <translation>GPU 비교</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>계획(&amp;P)</translation>
    </message>
    <message>
        <source>Make It &amp;Fit...</source>
        <translation>맞춤 설정 찾기(&amp;F)...</translation>
    </message>
    <message>
        <source>The set-ups that fit the GPU and reach a batch, fastest first</source>
        <translation>GPU에 들어가고 배치에 도달하는 설정, 빠른 순서</translation>
    </message>
    <message>
        <source>&amp;Compare GPUs...</source>
        <translation>GPU 비교(&amp;C)...</translation>
    </message>
    <message>
        <source>This set-up on every GPU of the catalogue</source>
        <translation>카탈로그의 모든 GPU에서 이 설정</translation>
    </message>
    <message>
        <source>&amp;Include Set-ups in Reports</source>
        <translation>보고서에 설정 포함(&amp;I)</translation>
    </message>
    <message>
        <source>Exported reports add the Make It Fit table for the panel&apos;s goal</source>
        <translation>내보낸 보고서에 패널 목표에 대한 맞춤 설정 찾기 표를 추가</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>보기(&amp;V)</translation>
    </message>
    <message>
        <source>Dropped from the set-up, as no Linear layer of this model has the name: LoRA target %1%2.</source>
        <translation>이 모델에는 같은 이름의 Linear 레이어가 없어 설정에서 뺐습니다: LoRA 대상 %1%2.</translation>
    </message>
    <message>
        <source> (LoRA now adapts every Linear layer but the head)</source>
        <translation> (이제 LoRA는 출력 헤드를 뺀 모든 Linear 레이어에 적용됩니다)</translation>
    </message>
    <message>
        <source>%1 - %2 - %3.png</source>
        <translation>%1 - %2 - %3.png</translation>
    </message>
    <message>
        <source>Export Image</source>
        <translation>이미지 내보내기</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 이미지 (*.png)</translation>
    </message>
    <message>
        <source>Cannot export the image</source>
        <translation>이미지를 내보낼 수 없습니다</translation>
    </message>
    <message>
        <source>%1 could not be written: check that its folder exists and can be written to.</source>
        <translation>%1을(를) 쓸 수 없습니다: 폴더가 있고 쓸 수 있는지 확인하세요.</translation>
    </message>
    <message>
        <source>Image written to %1</source>
        <translation>이미지를 %1에 썼습니다</translation>
    </message>
    <message>
        <source>Measured runs (*.pickle *.pkl *.json *.json.gz *.html *.htm *.gz);;Memory snapshots (*.pickle *.pkl);;memory_viz pages (*.html *.htm);;Profiler exports (*.json *.json.gz *.gz);;All files (*)</source>
        <translation>측정한 실행 (*.pickle *.pkl *.json *.json.gz *.html *.htm *.gz);;메모리 스냅샷 (*.pickle *.pkl);;memory_viz 페이지 (*.html *.htm);;프로파일러 내보내기 (*.json *.json.gz *.gz);;모든 파일 (*)</translation>
    </message>
    <message>
        <source>Open Measured Run</source>
        <translation>측정한 실행 열기</translation>
    </message>
    <message>
        <source>Cannot open the measured run</source>
        <translation>측정한 실행을 열 수 없습니다</translation>
    </message>
    <message>
        <source>Opened %1 beside the plan</source>
        <translation>계획 옆에 %1을(를) 열었습니다</translation>
    </message>
    <message>
        <source>Measured run: %1</source>
        <translation>측정한 실행: %1</translation>
    </message>
    <message>
        <source>Cannot open the file</source>
        <translation>파일을 열 수 없습니다</translation>
    </message>
    <message>
        <source>%1 is neither a model nor a measured run.
As a model: %2
As a measured run: %3</source>
        <translation>%1은(는) 모델도 측정한 실행도 아닙니다.
모델로: %2
측정한 실행으로: %3</translation>
    </message>
    <message>
        <source>Open &amp;Measured Run...</source>
        <translation>측정한 실행 열기(&amp;M)...</translation>
    </message>
    <message>
        <source>Opens a PyTorch memory snapshot or profiler export beside the plan</source>
        <translation>PyTorch 메모리 스냅샷이나 프로파일러 내보내기 파일을 계획 옆에 엽니다</translation>
    </message>
    <message>
        <source>&amp;Close Measured Run</source>
        <translation>측정한 실행 닫기(&amp;C)</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>파이프라인 스테이지</translation>
    </message>
    <message>
        <source>%1 is not JSON text: %2</source>
        <translation>%1은(는) JSON 텍스트가 아닙니다: %2</translation>
    </message>
    <message>
        <source>%1 is neither a custom GPU&apos;s JSON object nor “name&lt;TAB&gt;bytes”: %2</source>
        <translation>%1은(는) 사용자 정의 GPU의 JSON 객체도 “이름&lt;TAB&gt;바이트”도 아닙니다: %2</translation>
    </message>
    <message>
        <source>Skipped a custom GPU the settings hold: %1</source>
        <translation>설정에 저장된 사용자 정의 GPU 하나를 건너뛰었습니다: %1</translation>
    </message>
    <message numerus="yes">
        <source>Skipped %n custom GPUs the settings hold: %1</source>
        <translation>
            <numerusform>설정에 저장된 사용자 정의 GPU %n개를 건너뛰었습니다: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>headroom::ui::MakeItFitPanel</name>
    <message>
        <source>As large as fits</source>
        <translation>들어가는 최대 크기</translation>
    </message>
    <message>
        <source>Samples per optimizer step: micro-batch × accumulation steps × data-parallel GPUs</source>
        <translation>옵티마이저 스텝당 샘플 수: 마이크로 배치 × 누적 스텝 × 데이터 병렬 GPU 수</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 초</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>제한 없음</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>정밀도</translation>
    </message>
    <message>
        <source>LoRA / QLoRA</source>
        <translation>LoRA / QLoRA</translation>
    </message>
    <message>
        <source>8-bit optimizer state</source>
        <translation>8비트 옵티마이저 상태</translation>
    </message>
    <message>
        <source>Changes what training computes: only proposed when ticked</source>
        <translation>학습이 계산하는 내용을 바꿈: 체크했을 때만 제안</translation>
    </message>
    <message>
        <source>&amp;Effective batch:</source>
        <translation>유효 배치(&amp;E):</translation>
    </message>
    <message>
        <source>&amp;Longest step:</source>
        <translation>최장 스텝(&amp;L):</translation>
    </message>
    <message>
        <source>May also change:</source>
        <translation>다음도 바꿀 수 있음:</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>적용(&amp;A)</translation>
    </message>
    <message>
        <source>Set this set-up in the plan (Edit &gt; Undo takes it back)</source>
        <translation>이 설정을 계획에 적용 (편집 &gt; 실행 취소로 되돌림)</translation>
    </message>
    <message>
        <source>Cannot plan: %1</source>
        <translation>계획할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>Nothing fits. Closest: %1 (%2), but %3.</source>
        <translation>들어가는 설정이 없습니다. 가장 가까운 설정: %1 (%2), 하지만 %3.</translation>
    </message>
    <message>
        <source>Nothing fits.</source>
        <translation>들어가는 설정이 없습니다.</translation>
    </message>
    <message>
        <source>Apply set-up: %1</source>
        <translation>설정 적용: %1</translation>
    </message>
    <message>
        <source>each at the batch that reaches an effective batch of %1</source>
        <translation>각각 유효 배치 %1에 도달하는 배치로</translation>
    </message>
    <message>
        <source>each at the largest batch that fits</source>
        <translation>각각 들어가는 가장 큰 배치로</translation>
    </message>
    <message>
        <source>Set-ups that fit: %1, fastest first, %2. ★ marks the Pareto front: no other set-up is as fast with less memory.</source>
        <translation>들어가는 설정: %1개, 빠른 순서, %2. ★는 파레토 전선: 더 적은 메모리로 같은 속도를 내는 다른 설정이 없습니다.</translation>
    </message>
    <message>
        <source>The network is empty: add layers to find the set-ups that fit.</source>
        <translation>네트워크가 비어 있습니다. 레이어를 추가해야 들어가는 설정을 찾을 수 있습니다.</translation>
    </message>
    <message>
        <source>To stay quick, the search left part of its work out (hover here for what); the set-ups listed are estimated in full.</source>
        <translation>빠르게 끝내기 위해 검색이 일부 작업을 생략했습니다(무엇을 생략했는지는 여기에 마우스를 올려 보십시오). 목록의 설정은 모두 완전히 추정한 값입니다.</translation>
    </message>
    <message>
        <source>Left out:</source>
        <translation>생략한 항목:</translation>
    </message>
    <message>
        <source>Order: fastest first; at equal speed, training unchanged first, then less traffic between GPUs (not in the speed: offload, tensor parallelism, ZeRO-3), less memory, a larger max batch. A set-up another matches or beats on all of these is not listed.</source>
        <translation>순서: 가장 빠른 것부터, 속도가 같으면 학습을 바꾸지 않는 것, 그다음 GPU 간 통신이 적은 것(속도 추정에 들어 있지 않음: 오프로드, 텐서 병렬, ZeRO-3), 메모리가 적은 것, 최대 배치가 큰 것 순입니다. 이 모든 항목에서 다른 설정보다 나은 점이 없는 설정은 표시하지 않습니다.</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>검색 중…</translation>
    </message>
    <message>
        <source>&amp;Set-ups of This GPU</source>
        <translation>이 GPU의 설정(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Cluster Layouts</source>
        <translation>클러스터 레이아웃(&amp;C)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MeasuredRunPanel</name>
    <message>
        <source>memory snapshot (pickle)</source>
        <translation>메모리 스냅샷 (pickle)</translation>
    </message>
    <message>
        <source>memory snapshot (JSON)</source>
        <translation>메모리 스냅샷 (JSON)</translation>
    </message>
    <message>
        <source>memory snapshot (memory_viz page)</source>
        <translation>메모리 스냅샷 (memory_viz 페이지)</translation>
    </message>
    <message>
        <source>profiler memory timeline</source>
        <translation>프로파일러 메모리 타임라인</translation>
    </message>
    <message>
        <source>profiler Chrome trace</source>
        <translation>프로파일러 Chrome 트레이스</translation>
    </message>
    <message>
        <source>Before the steps</source>
        <translation>스텝 이전</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>순전파</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>역전파</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>옵티마이저 스텝</translation>
    </message>
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
        <source>Workspaces</source>
        <translation>작업 공간</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>임시 텐서</translation>
    </message>
    <message>
        <source>Unattributed</source>
        <translation>미분류</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1 (%2 %)</translation>
    </message>
    <message>
        <source>Close Run</source>
        <translation>실행 닫기</translation>
    </message>
    <message>
        <source>Calibrate Plan</source>
        <translation>계획 보정</translation>
    </message>
    <message>
        <source>Adds what the run held beyond the plan to the plan (Edit &gt; Undo takes it back)</source>
        <translation>실행이 계획보다 더 쓴 메모리를 계획에 더합니다 (편집 &gt; 실행 취소로 되돌림)</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>최대</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>예측</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>측정</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>차이</translation>
    </message>
    <message>
        <source>&lt;b&gt;Not in the plan&lt;/b&gt; (largest first)</source>
        <translation>&lt;b&gt;계획에 없는 것&lt;/b&gt; (큰 순서)</translation>
    </message>
    <message>
        <source>No measured run is open (File &gt; Open Measured Run...).</source>
        <translation>열린 측정 실행이 없습니다 (파일 &gt; 측정한 실행 열기...).</translation>
    </message>
    <message>
        <source>no training step found</source>
        <translation>학습 스텝을 찾지 못함</translation>
    </message>
    <message>
        <source>training steps found: %1 (the first, and %2 steady)</source>
        <translation>찾은 학습 스텝: %1 (첫 스텝과 정상 스텝 %2개)</translation>
    </message>
    <message>
        <source>training steps found: %1</source>
        <translation>찾은 학습 스텝: %1</translation>
    </message>
    <message>
        <source>batch %1 (the plan&apos;s, assumed: not given)</source>
        <translation>배치 %1 (계획의 값으로 가정: 주어지지 않음)</translation>
    </message>
    <message>
        <source>batch %1 (given)</source>
        <translation>배치 %1 (주어짐)</translation>
    </message>
    <message>
        <source>%1 (the plan&apos;s, assumed: not given)</source>
        <translation>%1 (계획의 값으로 가정: 주어지지 않음)</translation>
    </message>
    <message>
        <source>%1 (given)</source>
        <translation>%1 (주어짐)</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — %2, %3.&lt;br&gt;Compared at %4, %5.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; — %2, %3.&lt;br&gt;비교 조건: %4, %5.</translation>
    </message>
    <message>
        <source>The run&apos;s set-up was not given: the plan&apos;s is assumed, so a difference may be the set-up&apos;s rather than the model&apos;s.</source>
        <translation>실행의 설정이 주어지지 않아 계획의 설정을 가정했습니다. 차이는 모델이 아니라 설정 때문일 수 있습니다.</translation>
    </message>
    <message>
        <source>&lt;b&gt;The plan&apos;s set-up differs from the run&apos;s.&lt;/b&gt;</source>
        <translation>&lt;b&gt;계획의 설정이 실행의 설정과 다릅니다.&lt;/b&gt;</translation>
    </message>
    <message>
        <source>The step&apos;s peaks</source>
        <translation>스텝의 최대값</translation>
    </message>
    <message>
        <source>Allocated (max_memory_allocated)</source>
        <translation>할당됨 (max_memory_allocated)</translation>
    </message>
    <message>
        <source>Reserved (max_memory_reserved)</source>
        <translation>예약됨 (max_memory_reserved)</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>기록되지 않음</translation>
    </message>
    <message>
        <source>By phase</source>
        <translation>단계별</translation>
    </message>
    <message>
        <source>%1, allocated</source>
        <translation>%1, 할당됨</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>찾지 못함</translation>
    </message>
    <message>
        <source>%1, reserved</source>
        <translation>%1, 예약됨</translation>
    </message>
    <message>
        <source>By component at the allocated peak</source>
        <translation>할당 최대 시점의 구성 요소별</translation>
    </message>
    <message>
        <source>not known</source>
        <translation>알 수 없음</translation>
    </message>
    <message>
        <source>%1 (a smaller block, not described)</source>
        <translation>%1 (작은 블록, 설명 없음)</translation>
    </message>
    <message>
        <source>... and %1 smaller blocks</source>
        <translation>... 그리고 더 작은 블록 %1개</translation>
    </message>
    <message>
        <source>Every block matched a tensor of the plan.</source>
        <translation>모든 블록이 계획의 텐서와 대응했습니다.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Notes&lt;/b&gt;&lt;br&gt;</source>
        <translation>&lt;b&gt;참고&lt;/b&gt;&lt;br&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Calibration the run proposes&lt;/b&gt;</source>
        <translation>&lt;b&gt;실행이 제안하는 보정&lt;/b&gt;</translation>
    </message>
    <message>
        <source>%1 fixed + %2 per sample, read at batch %3.</source>
        <translation>고정 %1 + 샘플당 %2, 배치 %3에서 읽음.</translation>
    </message>
    <message>
        <source>The largest batch would be %1 (now %2).</source>
        <translation>최대 배치는 %1이 됩니다 (현재 %2).</translation>
    </message>
    <message>
        <source>The plan is not calibrated.</source>
        <translation>계획이 보정되지 않았습니다.</translation>
    </message>
    <message>
        <source>a measured run</source>
        <translation>측정한 실행</translation>
    </message>
    <message>
        <source>Calibrated from %1: +%2 fixed, +%3 per sample</source>
        <translation>%1에서 보정됨: 고정 +%2, 샘플당 +%3</translation>
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
        <source>Batch size (log scale)</source>
        <translation>배치 크기 (로그 눈금)</translation>
    </message>
    <message>
        <source>Micro-batch per GPU (log scale)</source>
        <translation>GPU당 마이크로 배치 (로그 눈금)</translation>
    </message>
    <message>
        <source>max %1</source>
        <translation>최대 %1</translation>
    </message>
    <message>
        <source>%1 per GPU</source>
        <translation>GPU당 %1</translation>
    </message>
    <message>
        <source>During one step</source>
        <translation>한 스텝 동안</translation>
    </message>
    <message>
        <source>Reserved by PyTorch at batch %1, with the overhead: %2</source>
        <translation>배치 %1에서 PyTorch가 예약한 메모리(오버헤드 포함): %2</translation>
    </message>
    <message>
        <source>&amp;Copy Image</source>
        <translation>이미지 복사(&amp;C)</translation>
    </message>
    <message>
        <source>Copies the chart to the clipboard as an image</source>
        <translation>차트를 이미지로 클립보드에 복사합니다</translation>
    </message>
    <message>
        <source>Export &amp;Image...</source>
        <translation>이미지 내보내기(&amp;I)...</translation>
    </message>
    <message>
        <source>Saves the chart as a PNG image</source>
        <translation>차트를 PNG 이미지로 저장합니다</translation>
    </message>
    <message>
        <source>Export &amp;Report...</source>
        <translation>보고서 내보내기(&amp;R)...</translation>
    </message>
    <message>
        <source>Writes the PDF report of the plan, with this chart</source>
        <translation>이 차트를 포함한 계획의 PDF 보고서를 씁니다</translation>
    </message>
    <message>
        <source>during one step</source>
        <translation>한 스텝 동안</translation>
    </message>
    <message>
        <source>memory vs batch size</source>
        <translation>메모리 대 배치 크기</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1, %2</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PipelineStagesView</name>
    <message>
        <source>Stage %1: %2</source>
        <translation>스테이지 %1: %2</translation>
    </message>
    <message>
        <source>%1 stages, %2, %3 micro-batches (the accumulation steps), bubble %4. The charts show %5; choose a stage to chart it.</source>
        <translation>%1개 스테이지, %2, 마이크로배치 %3개(누적 단계 수), 버블 %4. 차트는 %5을(를) 보여 줍니다. 스테이지를 선택하면 그 스테이지를 그립니다.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanCandidateModel</name>
    <message>
        <source>This set-up computes something different from the one you have: the model it trains can differ.</source>
        <translation>이 설정은 현재 설정과 다른 것을 계산합니다: 학습되는 모델이 달라질 수 있습니다.</translation>
    </message>
    <message>
        <source>The same training as the set-up you have, run differently.</source>
        <translation>현재 설정과 같은 학습을 다른 방식으로 실행합니다.</translation>
    </message>
    <message>
        <source>On the Pareto front: no other set-up is as fast with less memory.</source>
        <translation>파레토 전선 위: 더 적은 메모리로 같은 속도를 내는 다른 설정이 없습니다.</translation>
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
        <translation>바뀌는 점</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>학습</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>메모리</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>최대 배치</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>스텝 시간</translation>
    </message>
    <message>
        <source>Tokens/s per GPU</source>
        <translation>GPU당 토큰/초</translation>
    </message>
    <message>
        <source>Samples/s per GPU</source>
        <translation>GPU당 샘플/초</translation>
    </message>
    <message>
        <source>Pareto</source>
        <translation>파레토</translation>
    </message>
    <message>
        <source>Fastest first</source>
        <translation>빠른 순서</translation>
    </message>
    <message>
        <source>What the set-up changes in yours (“As set up”: nothing)</source>
        <translation>이 설정이 현재 설정에서 바꾸는 점 (“현재 설정 그대로”: 없음)</translation>
    </message>
    <message>
        <source>Whether that changes what training computes</source>
        <translation>그로 인해 학습이 계산하는 내용이 달라지는지</translation>
    </message>
    <message>
        <source>The micro-batch (× accumulation steps × GPUs) the set-up runs to reach the goal: the target effective batch, or the largest that fits. Not your set-up&apos;s batch.</source>
        <translation>설정이 목표에 도달하기 위해 실행하는 마이크로 배치(× 누적 스텝 × GPU 수): 목표 유효 배치 또는 들어가는 가장 큰 배치. 현재 설정의 배치가 아닙니다.</translation>
    </message>
    <message>
        <source>Planned batch</source>
        <translation>계획 배치</translation>
    </message>
    <message>
        <source>The largest micro-batch that fits with this set-up</source>
        <translation>이 설정으로 들어가는 가장 큰 마이크로 배치</translation>
    </message>
    <message>
        <source>One optimizer step at the planned batch</source>
        <translation>계획 배치에서 옵티마이저 스텝 하나</translation>
    </message>
    <message>
        <source>At the planned batch</source>
        <translation>계획 배치에서</translation>
    </message>
    <message>
        <source>What each GPU holds at the peak at the planned batch: what PyTorch&apos;s caching allocator reserves, plus the overhead</source>
        <translation>계획 배치의 최대치에 GPU마다 사용하는 메모리: PyTorch 캐싱 할당자가 예약하는 메모리와 오버헤드</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PlanController</name>
    <message>
        <source>The network is empty: add layers to see how much memory training it takes.</source>
        <translation>네트워크가 비어 있습니다. 레이어를 추가하면 학습에 드는 메모리를 볼 수 있습니다.</translation>
    </message>
    <message>
        <source>No estimate: the training set-up cannot be used (the reason is under the set-up).</source>
        <translation>추정 불가: 이 학습 설정은 쓸 수 없습니다 (이유는 학습 설정 아래에 있습니다).</translation>
    </message>
    <message>
        <source>No estimate until layer %1 is fixed.</source>
        <translation>레이어 %1을(를) 고치기 전까지는 추정할 수 없습니다.</translation>
    </message>
    <message>
        <source>No estimate until the network is fixed (the reason is under the layer table).</source>
        <translation>네트워크를 고치기 전까지는 추정할 수 없습니다 (이유는 레이어 표 아래에 있습니다).</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>추정 없음</translation>
    </message>
    <message>
        <source>Reserved by PyTorch&apos;s caching allocator: not simulated (%1). The max batch is from the tensors alone.</source>
        <translation>PyTorch 캐싱 할당자의 예약 메모리: 시뮬레이션하지 않음(%1). 최대 배치는 텐서만으로 계산합니다.</translation>
    </message>
    <message>
        <source>Stage %1 of %2 (chosen)</source>
        <translation>스테이지 %1/%2(선택됨)</translation>
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
        <source>×</source>
        <comment>after a Repeat block&apos;s count: 3x</comment>
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
        <translation>학습하지 않음: 파라미터에 그래디언트와 옵티마이저 상태가 없음 (블록에서는 안의 모든 레이어)</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>체크포인트</translation>
    </message>
    <message>
        <source>Each repetition keeps only its input; backward recomputes the rest (activation checkpointing per block)</source>
        <translation>반복마다 입력만 보관하고 나머지는 역전파에서 다시 계산 (블록별 활성화 체크포인팅)</translation>
    </message>
    <message>
        <source>Takes effect when the set-up&apos;s checkpointing is &quot;%1&quot; (now &quot;%2&quot;).</source>
        <translation>학습 설정의 체크포인팅이 &quot;%1&quot;일 때 적용됩니다 (현재 &quot;%2&quot;).</translation>
    </message>
    <message>
        <source>Letters, digits, “_”, “.” and “-”; other layers use it in their inputs</source>
        <translation>문자, 숫자, “_”, “.”, “-”. 다른 레이어가 입력에서 이 이름을 씁니다</translation>
    </message>
    <message>
        <source>Type one sample&apos;s shape without the batch axis, for example 3, 224, 224.</source>
        <translation>배치 축을 뺀 샘플 하나의 형태를 입력하세요. 예: 3, 224, 224.</translation>
    </message>
    <message>
        <source>“%1” is not a size: each dimension is a whole number of at least 1 (for example 3, 224, 224).</source>
        <translation>“%1”은(는) 크기가 아닙니다. 각 차원은 1 이상의 정수여야 합니다 (예: 3, 224, 224).</translation>
    </message>
    <message>
        <source>A name has letters, digits, “_”, “.” and “-” only (at most 200).</source>
        <translation>이름에는 문자, 숫자, “_”, “.”, “-”만 쓸 수 있습니다 (최대 200자).</translation>
    </message>
    <message>
        <source>“%1” is reserved for the network&apos;s input.</source>
        <translation>“%1”은(는) 네트워크 입력용으로 예약되어 있습니다.</translation>
    </message>
    <message>
        <source>Trained at %1 tokens (Strategy: Sequence length); the model&apos;s own input is %2.</source>
        <translation>%1 토큰으로 학습합니다(전략: 시퀀스 길이). 모델 자체의 입력은 %2입니다.</translation>
    </message>
</context>
<context>
    <name>headroom::ui::RunController</name>
    <message>
        <source>Calibrate from %1</source>
        <translation>%1에서 보정</translation>
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
        <translation>활성화 체크포인팅, 어텐션, 시퀀스 길이, 그래디언트 누적, LoRA와 QLoRA</translation>
    </message>
    <message>
        <source>Multi-GPU</source>
        <translation>멀티 GPU</translation>
    </message>
    <message>
        <source>8-bit state</source>
        <translation>8비트 상태</translation>
    </message>
    <message>
        <source>bitsandbytes-style 8-bit optimizer state (block-wise quantised; tensors below 4096 elements stay 32-bit)</source>
        <translation>bitsandbytes 방식 8비트 옵티마이저 상태 (블록별 양자화, 원소 4096개 미만 텐서는 32비트 유지)</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>The fraction of the GPU&apos;s peak FLOP rate a training step is assumed to reach (for the step time and throughput)</source>
        <translation>학습 스텝이 도달한다고 가정하는 GPU 최대 FLOP 속도의 비율 (스텝 시간과 처리량 추정용)</translation>
    </message>
    <message>
        <source>Utilisation:</source>
        <translation>활용률:</translation>
    </message>
    <message>
        <source>Activation checkpointing: per block keeps only each checkpointed block&apos;s input and recomputes the rest in backward (mark blocks in the layer editor; with none marked, every top-level Repeat block); selective recomputes only the attention score matrices</source>
        <translation>활성화 체크포인팅: 블록별은 체크포인트된 각 블록의 입력만 보관하고 나머지는 역전파에서 다시 계산 (레이어 편집기에서 블록 표시, 표시가 없으면 모든 최상위 반복 블록). 선택적은 어텐션 점수 행렬만 다시 계산</translation>
    </message>
    <message>
        <source>Flash / SDPA kernels keep no T × T matrix; eager attention keeps heads × T × T probabilities (and their dropout mask)</source>
        <translation>Flash / SDPA 커널은 T × T 행렬을 보관하지 않고, eager 어텐션은 heads × T × T 확률(과 dropout 마스크)을 보관</translation>
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
        <translation>그래디언트 누적: 옵티마이저 스텝마다 데이터 병렬 GPU당 마이크로 배치 × 스텝 수만큼의 샘플을 처리. 메모리는 마이크로 배치를 따름</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>끔</translation>
    </message>
    <message>
        <source>LoRA rank r: targeted Linear layers are frozen and get trainable r × in and out × r adapters; every other parameter is frozen. 0 turns LoRA off</source>
        <translation>LoRA 랭크 r: 대상 Linear 레이어는 고정되고 학습 가능한 r × in, out × r 어댑터가 붙음. 나머지 파라미터는 모두 고정. 0이면 LoRA 끔</translation>
    </message>
    <message>
        <source>every Linear but the head</source>
        <translation>헤드를 제외한 모든 Linear</translation>
    </message>
    <message>
        <source>Linear layers to adapt, matched against the end of their names, separated by commas (q_proj, v_proj)</source>
        <translation>어댑터를 붙일 Linear 레이어. 이름의 끝부분으로 찾으며 쉼표로 구분 (q_proj, v_proj)</translation>
    </message>
    <message>
        <source>lora_dropout: above 0, each adapted layer keeps a dropped copy of its input</source>
        <translation>lora_dropout: 0보다 크면 어댑터가 붙은 각 레이어가 입력에 dropout을 적용한 사본을 보관</translation>
    </message>
    <message>
        <source>QLoRA (4-bit base)</source>
        <translation>QLoRA (4비트 기반 가중치)</translation>
    </message>
    <message>
        <source>QLoRA: the frozen base Linear weights stored as 4-bit NF4 with double-quantised constants; adapters in the half type</source>
        <translation>QLoRA: 고정된 기본 Linear 가중치를 이중 양자화된 상수와 함께 4비트 NF4로 저장, 어댑터는 반정밀도</translation>
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
        <source>How data parallelism shares the model state: DDP keeps everything on every GPU; ZeRO 1 shards optimizer state, 2 also gradients, 3 also weights (FSDP: shard-grad-op as ZeRO 2, full shard as ZeRO 3)</source>
        <translation>데이터 병렬이 모델 상태를 나누는 방식: DDP는 모든 GPU에 전부 보관, ZeRO 1은 옵티마이저 상태를 샤딩, 2는 그래디언트도, 3은 가중치도 샤딩 (FSDP: shard-grad-op은 ZeRO 2, full shard는 ZeRO 3에 해당)</translation>
    </message>
    <message>
        <source>Megatron tensor-parallel degree for attention and MLP layers</source>
        <translation>어텐션 및 MLP 레이어의 Megatron 텐서 병렬 차수</translation>
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
        <translation>이 학습 설정을 쓸 수 없습니다: %1</translation>
    </message>
    <message>
        <source>Tokens per sample; the model&apos;s own is %1</source>
        <translation>샘플당 토큰 수. 모델 자체의 값은 %1</translation>
    </message>
    <message>
        <source>Only for models whose input is a sequence (token ids [T] or features [T, E])</source>
        <translation>입력이 시퀀스인 모델에만 해당 (토큰 id [T] 또는 특성 [T, E])</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>해당 없음</translation>
    </message>
    <message>
        <source>Optimizer state (and FP32 master weights) kept in CPU memory (ZeRO-Offload); needs a ZeRO stage or FSDP sharding</source>
        <translation>옵티마이저 상태(와 FP32 마스터 가중치)를 CPU 메모리에 보관 (ZeRO-Offload). ZeRO 단계나 FSDP 샤딩이 필요함</translation>
    </message>
    <message>
        <source> × even share</source>
        <translation> × 균등 몫</translation>
    </message>
    <message>
        <source>Mixture of experts: the tokens the busiest expert of a layer receives, over an even share (1: balanced routing, the estimate&apos;s assumption). The experts keep the same activations for any routing; the busiest expert&apos;s backward buffers grow with this. At most experts ÷ experts per token, where one expert receives every token</source>
        <translation>전문가 혼합: 레이어에서 가장 바쁜 전문가가 받는 토큰 수를 균등 몫으로 나눈 값 (1: 균형 라우팅, 추정의 가정). 전문가가 보관하는 활성화는 라우팅과 관계없이 같고, 가장 바쁜 전문가의 역전파 버퍼가 이 값에 따라 커집니다. 최대는 전문가 수 ÷ 토큰당 전문가 수로, 이때 한 전문가가 모든 토큰을 받습니다</translation>
    </message>
    <message>
        <source>MoE imbalance:</source>
        <translation>MoE 불균형:</translation>
    </message>
    <message>
        <source>How torch.optim runs the optimizer step, and the temporaries it holds then: foreach (the default on CUDA) lists as large as all the parameters, fused=True none, foreach=False (for-loop) those of one parameter at a time</source>
        <translation>torch.optim이 옵티마이저 스텝을 실행하는 방식과 그때 보관하는 임시 텐서: foreach(CUDA의 기본값)는 전체 파라미터만큼 큰 리스트, fused=True는 없음, foreach=False(for 루프)는 한 번에 파라미터 하나분</translation>
    </message>
    <message>
        <source>Implementation:</source>
        <translation>구현 방식:</translation>
    </message>
    <message>
        <source>%1 has no fused implementation in torch.optim</source>
        <translation>%1에는 torch.optim의 fused 구현이 없습니다</translation>
    </message>
    <message>
        <source>Memory outside PyTorch&apos;s caching allocator: the CUDA context (its default follows the GPU). 0 leaves all of the GPU&apos;s memory to the allocator.</source>
        <translation>PyTorch 캐싱 할당자 밖의 메모리: CUDA 컨텍스트(기본값은 GPU에 따라 정해짐). 0이면 GPU 메모리 전체를 할당자에 맡깁니다.</translation>
    </message>
    <message>
        <source>No GPU matches “%1”, so the GPU stays %2. Type part of a name or an alias (“4090”, “A100 80GB”), or choose Custom... at the end of the list for your own.</source>
        <translation>“%1”과(와) 일치하는 GPU가 없으므로 GPU는 %2(으)로 유지됩니다. 이름이나 별칭의 일부(“4090”, “A100 80GB”)를 입력하거나, 목록 맨 끝의 “사용자 정의...”를 선택해 직접 추가하세요.</translation>
    </message>
    <message>
        <source>Allocator:</source>
        <translation>할당자:</translation>
    </message>
    <message>
        <source>Expandable segments</source>
        <translation>확장 가능한 세그먼트</translation>
    </message>
    <message>
        <source>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: PyTorch&apos;s caching allocator grows one segment by mapping pages rather than reserving new segments, which wastes less memory</source>
        <translation>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: PyTorch 캐싱 할당자가 새 세그먼트를 예약하지 않고 페이지를 매핑해 세그먼트 하나를 키우므로 낭비되는 메모리가 적습니다</translation>
    </message>
    <message>
        <source>Tokens per sample; the model&apos;s own is %1, and it takes up to %2</source>
        <translation>샘플당 토큰 수. 모델 자체의 값은 %1이며 최대 %2까지 받습니다</translation>
    </message>
    <message>
        <source>Data parallelism (DDP, ZeRO, FSDP), tensor, sequence, pipeline, context and expert parallelism, optimizer and activation offload</source>
        <translation>데이터 병렬(DDP, ZeRO, FSDP), 텐서·시퀀스·파이프라인·컨텍스트·전문가 병렬, 옵티마이저와 활성값 오프로드</translation>
    </message>
    <message>
        <source>GPUs in all (data × tensor × pipeline × context parallel); the chart shows one GPU&apos;s memory, with a pipeline the heaviest stage&apos;s</source>
        <translation>전체 GPU 수(데이터 × 텐서 × 파이프라인 × 컨텍스트 병렬). 차트는 GPU 하나의 메모리를, 파이프라인에서는 가장 무거운 스테이지의 메모리를 보여 줍니다</translation>
    </message>
    <message>
        <source>Pipeline stages:</source>
        <translation>파이프라인 스테이지:</translation>
    </message>
    <message>
        <source>Schedule:</source>
        <translation>스케줄:</translation>
    </message>
    <message>
        <source>Expert parallel:</source>
        <translation>전문가 병렬:</translation>
    </message>
    <message>
        <source>Sequence parallel</source>
        <translation>시퀀스 병렬</translation>
    </message>
    <message>
        <source>Sequence parallelism (Megatron-LM): the norms, dropouts and residual adds between the tensor-parallel regions run on 1/t of the sequence; needs tensor parallelism</source>
        <translation>시퀀스 병렬(Megatron-LM): 텐서 병렬 구간 사이의 정규화, 드롭아웃, 잔차 덧셈이 시퀀스의 1/t에서 실행됩니다. 텐서 병렬이 필요합니다</translation>
    </message>
    <message>
        <source>Pipeline-parallel stages: the model&apos;s layers cut into this many stages, one GPU each. The micro-batches of the pipeline are the accumulation steps (Strategy tab); the chart shows the heaviest stage&apos;s GPU</source>
        <translation>파이프라인 병렬 스테이지: 모델의 레이어를 이만큼의 스테이지로 나누고 스테이지마다 GPU 하나를 씁니다. 파이프라인의 마이크로배치는 누적 단계 수입니다(전략 탭). 차트는 가장 무거운 스테이지의 GPU를 보여 줍니다</translation>
    </message>
    <message>
        <source>How each stage orders its micro-batches (the accumulation steps): GPipe keeps every micro-batch&apos;s activations until the backward passes; 1F1B and zero bubble at most as many as there are stages after this one, plus one; interleaved 1F1B runs several model chunks per stage for a smaller bubble</source>
        <translation>각 스테이지가 마이크로배치(누적 단계)를 처리하는 순서: GPipe는 역전파까지 모든 마이크로배치의 활성값을 유지하고, 1F1B와 제로 버블은 뒤따르는 스테이지 수에 하나를 더한 만큼만 유지하며, 인터리브 1F1B는 버블을 줄이려고 스테이지마다 여러 모델 청크를 실행합니다</translation>
    </message>
    <message>
        <source>even</source>
        <translation>균등</translation>
    </message>
    <message>
        <source>Layers per pipeline stage, first to last, separated by commas (7,9,9,7): the embedding goes with the first stage, the output head with the last. Empty: as even as possible</source>
        <translation>파이프라인 스테이지별 레이어 수, 첫 스테이지부터 마지막까지 쉼표로 구분(7,9,9,7): 임베딩은 첫 스테이지에, 출력 헤드는 마지막 스테이지에 들어갑니다. 비우면 가능한 한 균등하게 나눕니다</translation>
    </message>
    <message>
        <source>Context parallelism: each sample&apos;s sequence split over this many GPUs</source>
        <translation>컨텍스트 병렬: 각 샘플의 시퀀스를 이만큼의 GPU에 나눕니다</translation>
    </message>
    <message>
        <source>Expert parallelism: a mixture of experts&apos; experts split over this many GPUs</source>
        <translation>전문가 병렬: 전문가 혼합 모델의 전문가를 이만큼의 GPU에 나눕니다</translation>
    </message>
    <message>
        <source>Saved activations moved to CPU memory during the forward pass and brought back for the backward: the checkpointed blocks&apos; inputs, or every saved activation</source>
        <translation>순전파 동안 저장된 활성값을 CPU 메모리로 옮겼다가 역전파 때 되가져옵니다: 체크포인트 블록의 입력 또는 저장된 모든 활성값</translation>
    </message>
    <message>
        <source>“%1” is not a list of layer counts, so the layers per stage stay %2. Type whole numbers from 1 up separated by commas, one per stage (7,9,9,7), or nothing for an even split.</source>
        <translation>“%1”은(는) 레이어 수 목록이 아니므로 스테이지당 레이어는 %2(으)로 유지됩니다. 스테이지마다 하나씩 1 이상의 정수를 쉼표로 구분해 입력하거나(7,9,9,7), 균등 분할을 원하면 비워 두세요.</translation>
    </message>
    <message>
        <source>Layers/stage:</source>
        <translation>스테이지당 레이어:</translation>
    </message>
    <message>
        <source>Context:</source>
        <translation>컨텍스트:</translation>
    </message>
    <message>
        <source>Expert TP:</source>
        <translation>전문가 TP:</translation>
    </message>
    <message>
        <source>Activations:</source>
        <translation>활성값:</translation>
    </message>
    <message>
        <source>On the GPU</source>
        <translation>GPU에 유지</translation>
    </message>
    <message>
        <source>Checkpoints to the CPU</source>
        <translation>체크포인트를 CPU로</translation>
    </message>
    <message>
        <source>All to the CPU</source>
        <translation>모두 CPU로</translation>
    </message>
    <message>
        <source> virtual</source>
        <translation> 가상</translation>
    </message>
    <message>
        <source>Virtual stages: model chunks per stage with the interleaved 1F1B schedule (Megatron-LM&apos;s virtual pipeline stages)</source>
        <translation>가상 스테이지: 인터리브 1F1B 스케줄에서 스테이지당 모델 청크 수(Megatron-LM의 가상 파이프라인 스테이지)</translation>
    </message>
    <message>
        <source>How context parallelism exchanges the sequence: ring attention passes key/value blocks around the ring; all-to-all (DeepSpeed-Ulysses) exchanges sequence shards for head shards</source>
        <translation>컨텍스트 병렬이 시퀀스를 주고받는 방식: 링 어텐션은 키/값 블록을 링을 따라 전달하고, all-to-all(DeepSpeed-Ulysses)은 시퀀스 샤드를 헤드 샤드로 교환합니다</translation>
    </message>
    <message>
        <source>Expert tensor parallelism: each expert&apos;s matrices split over this many GPUs</source>
        <translation>전문가 텐서 병렬: 각 전문가의 행렬을 이만큼의 GPU에 나눕니다</translation>
    </message>
    <message>
        <source>GPUs per node: a group of GPUs within one node talks over the GPU&apos;s own link (NVLink, PCIe), one spanning nodes over the network. Changes the step time and the planner&apos;s ranking, not memory</source>
        <translation>노드당 GPU 수: 한 노드 안의 GPU 그룹은 GPU 자체 링크(NVLink, PCIe)로, 노드에 걸친 그룹은 네트워크로 통신합니다. 스텝 시간과 플래너의 순위만 바꾸며 메모리는 바꾸지 않습니다</translation>
    </message>
    <message>
        <source>GPUs per node:</source>
        <translation>노드당 GPU 수:</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source>The network&apos;s bandwidth between nodes per GPU, GB/s each way (50: one 400 Gb/s InfiniBand adapter per GPU). Changes the step time and the planner&apos;s ranking, not memory</source>
        <translation>GPU당 노드 간 네트워크 대역폭, 한 방향 GB/s (50: GPU마다 400 Gb/s InfiniBand 어댑터 하나). 스텝 시간과 플래너의 순위만 바꾸며 메모리는 바꾸지 않습니다</translation>
    </message>
    <message>
        <source>Between nodes:</source>
        <translation>노드 간:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::StepChartView</name>
    <message>
        <source>Steady step</source>
        <translation>정상 스텝</translation>
    </message>
    <message>
        <source>First step</source>
        <translation>첫 스텝</translation>
    </message>
    <message>
        <source>A steady step holds the optimizer state throughout; the first step has none until its optimizer step creates it.</source>
        <translation>정상 스텝은 처음부터 끝까지 옵티마이저 상태를 보관합니다. 첫 스텝은 옵티마이저 스텝이 만들기 전까지 상태가 없습니다.</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>추정 없음</translation>
    </message>
    <message>
        <source>%1 per GPU</source>
        <translation>GPU당 %1</translation>
    </message>
    <message>
        <source>Memory (%1)</source>
        <translation>메모리 (%1)</translation>
    </message>
    <message>
        <source>The first training step at batch %1: no optimizer state until its optimizer step creates it.</source>
        <translation>배치 %1에서 첫 학습 스텝: 옵티마이저 스텝이 만들기 전까지 옵티마이저 상태가 없습니다.</translation>
    </message>
    <message>
        <source>One training step at batch %1: what is alive while each layer runs forward, then backward, then the optimizer step.</source>
        <translation>배치 %1에서 학습 스텝 하나: 각 레이어가 순전파, 그다음 역전파, 마지막으로 옵티마이저 스텝을 실행하는 동안 살아 있는 것.</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Live: %1 of %2</source>
        <translation>사용 중: %1 / %2</translation>
    </message>
    <message>
        <source>Reserved by PyTorch (with the overhead): %1</source>
        <translation>PyTorch 예약(오버헤드 포함): %1</translation>
    </message>
    <message>
        <source>%1 shows no first step apart from its steady ones.</source>
        <translation>%1에는 정상 스텝과 구별되는 첫 스텝이 없습니다.</translation>
    </message>
    <message>
        <source>No training step was found in %1: only its peak is compared (the Measured run tab).</source>
        <translation>%1에서 학습 스텝을 찾지 못했습니다. 최대값만 비교합니다 (측정한 실행 탭).</translation>
    </message>
    <message>
        <source>Predicted allocated, peak %1</source>
        <translation>예측 할당, 최대 %1</translation>
    </message>
    <message>
        <source>Predicted reserved, peak %1</source>
        <translation>예측 예약, 최대 %1</translation>
    </message>
    <message>
        <source>Measured allocated, peak %1</source>
        <translation>측정 할당, 최대 %1</translation>
    </message>
    <message>
        <source>Measured reserved, peak %1</source>
        <translation>측정 예약, 최대 %1</translation>
    </message>
    <message>
        <source>Predicted peak %1 (%2)</source>
        <translation>예측 최대 %1 (%2)</translation>
    </message>
    <message>
        <source>Measured peak %1 (%2)</source>
        <translation>측정 최대 %1 (%2)</translation>
    </message>
    <message>
        <source>The first step of %1 (measured) beside the plan&apos;s first step at batch %2.</source>
        <translation>%1의 첫 스텝(측정)과 배치 %2에서 계획의 첫 스텝.</translation>
    </message>
    <message>
        <source>A steady step of %1 (measured) beside the plan&apos;s at batch %2.</source>
        <translation>%1의 정상 스텝(측정)과 배치 %2에서 계획의 정상 스텝.</translation>
    </message>
    <message>
        <source>Each phase spans the same width, its events spread evenly across it, so the phases line up.</source>
        <translation>각 단계는 같은 너비를 차지하고 그 안의 이벤트가 고르게 퍼져 있어 단계가 나란히 맞춰집니다.</translation>
    </message>
    <message>
        <source>%1: %2, %3</source>
        <translation>%1: %2, %3</translation>
    </message>
    <message>
        <source>Measured allocated</source>
        <translation>측정 할당</translation>
    </message>
    <message>
        <source>Measured reserved</source>
        <translation>측정 예약</translation>
    </message>
    <message>
        <source>Predicted allocated</source>
        <translation>예측 할당</translation>
    </message>
    <message>
        <source>Predicted reserved</source>
        <translation>예측 예약</translation>
    </message>
    <message>
        <source>cuBLAS and cuDNN workspaces (allocated): %1</source>
        <translation>cuBLAS와 cuDNN 작업 공간 (할당됨): %1</translation>
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
        <source>Transient</source>
        <translation>임시 텐서</translation>
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
        <translation>Flash / SDPA</translation>
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
        <translation>FSDP shard-grad-op</translation>
    </message>
    <message>
        <source>FSDP full shard</source>
        <translation>FSDP 전체 샤딩</translation>
    </message>
    <message>
        <source>%1 %2FLOP</source>
        <translation>%1 %2FLOP</translation>
    </message>
    <message>
        <source>0 s</source>
        <translation>0초</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1µs</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1초</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1분</translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation>%1시간</translation>
    </message>
    <message>
        <source>Foreach (PyTorch default)</source>
        <translation>Foreach (PyTorch 기본값)</translation>
    </message>
    <message>
        <source>Fused</source>
        <translation>Fused (융합)</translation>
    </message>
    <message>
        <source>For-loop</source>
        <translation>For 루프</translation>
    </message>
    <message>
        <source>Mean absolute error (L1)</source>
        <translation>평균 절대 오차 (L1)</translation>
    </message>
    <message>
        <source>Binary cross-entropy</source>
        <translation>이진 교차 엔트로피</translation>
    </message>
    <message>
        <source>Calibration (measured excess)</source>
        <translation>보정 (측정된 초과분)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::WarningBanner</name>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>These numbers rest on an assumption you should check:</source>
        <translation>이 수치는 확인이 필요한 가정 하나에 기반합니다:</translation>
    </message>
    <message>
        <source>These numbers rest on %1 assumptions you should check:</source>
        <translation>이 수치는 확인이 필요한 가정 %1개에 기반합니다:</translation>
    </message>
    <message>
        <source>Show fewer</source>
        <translation>간략히 보기</translation>
    </message>
    <message>
        <source>Show all %1</source>
        <translation>%1개 모두 보기</translation>
    </message>
</context>
</TS>
