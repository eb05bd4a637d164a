#pragma once

// One-field mutations of a protobuf message (an ONNX ModelProto), by reflection: every scalar field
// set to values chosen to break what readers assume (zero, -1, 2^32, 2^62, INT64_MIN, NaN, an empty or
// overlong string, a byte less or more of raw data, another name from the same file), every repeated
// element removed or given twice, every sub-message cleared. Used by the exhaustive sweep test
// (tests/core/tst_onnxhostile.cpp: each mutation of a real export imports or fails cleanly) and by the
// ONNX fuzzer's structure-aware mutator (fuzz_onnx_import.cpp), which applies random ones.

#include <cmath>
#include <cstdint>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace headroom::fuzz {

/// Where a value sits in a message: field numbers and, in repeated fields, indices (-1: singular).
struct FieldStep
{
    int field = 0;
    int index = -1;
};
using FieldPath = std::vector<FieldStep>;

/// One mutation: at `path`, do `kind` with the `variant`-th candidate value.
struct FieldMutation
{
    enum class Kind { SetValue, Remove, Duplicate, Clear };
    FieldPath path;
    Kind kind = Kind::SetValue;
    int variant = 0;
};

namespace detail {

namespace pb = google::protobuf;

inline const std::vector<std::int64_t>& intValues()
{
    static const std::vector<std::int64_t> values { 0, -1, 1, 2, 3, 7, 64, 255, 65536, (1LL << 31) - 1,
        -(1LL << 31), 1LL << 32, 1LL << 40, 1LL << 62, std::numeric_limits<std::int64_t>::min(),
        std::numeric_limits<std::int64_t>::max() };
    return values;
}

inline const std::vector<double>& realValues()
{
    static const std::vector<double> values { 0.0, -1.0, 1e30, -1e-30,
        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity() };
    return values;
}

/// Strings to try in a string field: empty, control characters, overlong, and the file's own
/// (tensor and node names, so that a mutation can wire a node to another tensor).
inline std::vector<std::string> stringValues(const std::vector<std::string>& pool)
{
    std::vector<std::string> values { "", "a\n\x1b[31mred\x07", std::string(300, 'n'), "\xff\xfe" };
    values.insert(values.end(), pool.begin(), pool.end());
    return values;
}

inline int variantCount(const pb::FieldDescriptor* f, std::size_t poolSize)
{
    using T = pb::FieldDescriptor;
    switch (f->cpp_type()) {
    case T::CPPTYPE_INT32:
    case T::CPPTYPE_INT64:
    case T::CPPTYPE_UINT32:
    case T::CPPTYPE_UINT64:
        return static_cast<int>(intValues().size()) + 2; // and the value plus and minus one
    case T::CPPTYPE_FLOAT:
    case T::CPPTYPE_DOUBLE:
        return static_cast<int>(realValues().size());
    case T::CPPTYPE_BOOL:
        return 1;
    case T::CPPTYPE_ENUM:
        return f->enum_type()->value_count();
    case T::CPPTYPE_STRING:
        return f->type() == T::TYPE_BYTES ? 4 : static_cast<int>(4 + poolSize);
    case T::CPPTYPE_MESSAGE:
        return 0;
    }
    return 0;
}

inline void collectStrings(const pb::Message& m, std::set<std::string>& pool)
{
    const auto* r = m.GetReflection();
    std::vector<const pb::FieldDescriptor*> fields;
    r->ListFields(m, &fields);
    for (const auto* f : fields) {
        if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
            for (int i = 0; i < (f->is_repeated() ? r->FieldSize(m, f) : 1); ++i)
                collectStrings(f->is_repeated() ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f), pool);
        } else if (f->type() == pb::FieldDescriptor::TYPE_STRING && pool.size() < 24) {
            for (int i = 0; i < (f->is_repeated() ? r->FieldSize(m, f) : 1); ++i)
                pool.insert(f->is_repeated() ? r->GetRepeatedString(m, f, i) : r->GetString(m, f));
        }
    }
}

inline void collect(
    const pb::Message& m, FieldPath& path, std::size_t poolSize, std::vector<FieldMutation>& out)
{
    const auto* r = m.GetReflection();
    std::vector<const pb::FieldDescriptor*> fields;
    r->ListFields(m, &fields);
    for (const auto* f : fields) {
        const int count = f->is_repeated() ? r->FieldSize(m, f) : 1;
        for (int i = 0; i < count; ++i) {
            path.push_back(FieldStep { f->number(), f->is_repeated() ? i : -1 });
            if (f->is_repeated()) {
                out.push_back(FieldMutation { path, FieldMutation::Kind::Remove, 0 });
                out.push_back(FieldMutation { path, FieldMutation::Kind::Duplicate, 0 });
            }
            if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
                if (!f->is_repeated())
                    out.push_back(FieldMutation { path, FieldMutation::Kind::Clear, 0 });
                collect(f->is_repeated() ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f), path,
                    poolSize, out);
            } else {
                for (int v = 0; v < variantCount(f, poolSize); ++v)
                    out.push_back(FieldMutation { path, FieldMutation::Kind::SetValue, v });
            }
            path.pop_back();
        }
    }
}

template <typename Int> Int shifted(Int value, int variant)
{
    if (variant == static_cast<int>(intValues().size()))
        return static_cast<Int>(value + 1);
    if (variant == static_cast<int>(intValues().size()) + 1)
        return static_cast<Int>(value - 1);
    return static_cast<Int>(intValues()[static_cast<std::size_t>(variant)]);
}

inline std::string bytesValue(const std::string& value, int variant)
{
    switch (variant) {
    case 0:
        return value.empty() ? value : value.substr(0, value.size() - 1); // a byte short
    case 1:
        return value + '\x01'; // a byte over
    case 2:
        return {};
    default:
        return value + value;
    }
}

/// Sets field `f` (element `i`, or the singular value when `i` is -1) of `m` to the `variant`-th value.
inline void setValue(
    pb::Message& m, const pb::FieldDescriptor* f, int i, int variant, const std::vector<std::string>& pool)
{
    using T = pb::FieldDescriptor;
    const auto* r = m.GetReflection();
    const bool rep = i >= 0;
    switch (f->cpp_type()) {
    case T::CPPTYPE_INT32: {
        const auto v = shifted<std::int32_t>(rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f), variant);
        rep ? r->SetRepeatedInt32(&m, f, i, v) : r->SetInt32(&m, f, v);
        break;
    }
    case T::CPPTYPE_INT64: {
        const auto v = shifted<std::int64_t>(rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f), variant);
        rep ? r->SetRepeatedInt64(&m, f, i, v) : r->SetInt64(&m, f, v);
        break;
    }
    case T::CPPTYPE_UINT32: {
        const auto v
            = shifted<std::uint32_t>(rep ? r->GetRepeatedUInt32(m, f, i) : r->GetUInt32(m, f), variant);
        rep ? r->SetRepeatedUInt32(&m, f, i, v) : r->SetUInt32(&m, f, v);
        break;
    }
    case T::CPPTYPE_UINT64: {
        const auto v
            = shifted<std::uint64_t>(rep ? r->GetRepeatedUInt64(m, f, i) : r->GetUInt64(m, f), variant);
        rep ? r->SetRepeatedUInt64(&m, f, i, v) : r->SetUInt64(&m, f, v);
        break;
    }
    case T::CPPTYPE_FLOAT: {
        const auto v = static_cast<float>(realValues()[static_cast<std::size_t>(variant)]);
        rep ? r->SetRepeatedFloat(&m, f, i, v) : r->SetFloat(&m, f, v);
        break;
    }
    case T::CPPTYPE_DOUBLE: {
        const auto v = realValues()[static_cast<std::size_t>(variant)];
        rep ? r->SetRepeatedDouble(&m, f, i, v) : r->SetDouble(&m, f, v);
        break;
    }
    case T::CPPTYPE_BOOL: {
        const bool v = !(rep ? r->GetRepeatedBool(m, f, i) : r->GetBool(m, f));
        rep ? r->SetRepeatedBool(&m, f, i, v) : r->SetBool(&m, f, v);
        break;
    }
    case T::CPPTYPE_ENUM: {
        const auto* v = f->enum_type()->value(variant);
        rep ? r->SetRepeatedEnum(&m, f, i, v) : r->SetEnum(&m, f, v);
        break;
    }
    case T::CPPTYPE_STRING: {
        const std::string old = rep ? r->GetRepeatedString(m, f, i) : r->GetString(m, f);
        std::string v;
        if (f->type() == T::TYPE_BYTES)
            v = bytesValue(old, variant);
        else
            v = stringValues(pool)[static_cast<std::size_t>(variant)];
        rep ? r->SetRepeatedString(&m, f, i, std::move(v)) : r->SetString(&m, f, std::move(v));
        break;
    }
    case T::CPPTYPE_MESSAGE:
        break;
    }
}

} // namespace detail

/// Every one-field mutation of `m` (see the file comment), in a fixed order.
inline std::vector<FieldMutation> fieldMutations(const google::protobuf::Message& m)
{
    std::set<std::string> pool;
    detail::collectStrings(m, pool);
    std::vector<FieldMutation> out;
    FieldPath path;
    detail::collect(m, path, pool.size(), out);
    return out;
}

/// Applies `mutation` to `m` (a copy of the message it was listed for). The string pool is the
/// message's own strings, gathered before the change.
inline void applyMutation(google::protobuf::Message& m, const FieldMutation& mutation)
{
    namespace pb = google::protobuf;
    std::set<std::string> poolSet;
    detail::collectStrings(m, poolSet);
    const std::vector<std::string> pool(poolSet.begin(), poolSet.end());
    pb::Message* owner = &m;
    for (std::size_t k = 0; k + 1 < mutation.path.size(); ++k) {
        const auto& step = mutation.path[k];
        const auto* f = owner->GetDescriptor()->FindFieldByNumber(step.field);
        const auto* r = owner->GetReflection();
        owner
            = step.index >= 0 ? r->MutableRepeatedMessage(owner, f, step.index) : r->MutableMessage(owner, f);
    }
    const auto& last = mutation.path.back();
    const auto* f = owner->GetDescriptor()->FindFieldByNumber(last.field);
    const auto* r = owner->GetReflection();
    switch (mutation.kind) {
    case FieldMutation::Kind::Clear:
        r->ClearField(owner, f);
        return;
    case FieldMutation::Kind::Remove: {
        const int size = r->FieldSize(*owner, f);
        for (int k = last.index; k + 1 < size; ++k)
            r->SwapElements(owner, f, k, k + 1);
        r->RemoveLast(owner, f);
        return;
    }
    case FieldMutation::Kind::Duplicate:
        if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
            const auto& element = r->GetRepeatedMessage(*owner, f, last.index);
            r->AddMessage(owner, f)->CopyFrom(element);
        } else {
            // A repeated scalar given twice: append the same element (removing and duplicating cover
            // the counts; its value mutations cover the rest).
            switch (f->cpp_type()) {
            case pb::FieldDescriptor::CPPTYPE_INT32:
                r->AddInt32(owner, f, r->GetRepeatedInt32(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_INT64:
                r->AddInt64(owner, f, r->GetRepeatedInt64(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_UINT32:
                r->AddUInt32(owner, f, r->GetRepeatedUInt32(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_UINT64:
                r->AddUInt64(owner, f, r->GetRepeatedUInt64(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_FLOAT:
                r->AddFloat(owner, f, r->GetRepeatedFloat(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_DOUBLE:
                r->AddDouble(owner, f, r->GetRepeatedDouble(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_BOOL:
                r->AddBool(owner, f, r->GetRepeatedBool(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_ENUM:
                r->AddEnum(owner, f, r->GetRepeatedEnum(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_STRING:
                r->AddString(owner, f, r->GetRepeatedString(*owner, f, last.index));
                break;
            case pb::FieldDescriptor::CPPTYPE_MESSAGE:
                break;
            }
        }
        return;
    case FieldMutation::Kind::SetValue:
        detail::setValue(*owner, f, last.index, mutation.variant, pool);
        return;
    }
}

} // namespace headroom::fuzz
