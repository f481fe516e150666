package storecopy

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"reflect"
	"slices"
	"time"
)

// digest returns the hash of v as write encodes it.
func digest(v any) string {
	h := sha256.New()
	write(h, reflect.ValueOf(v))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// timeType is the type of time.Time, hashed as its Unix microseconds.
var timeType = reflect.TypeFor[time.Time]()

// write adds v to h in an encoding that tells every two different values
// apart: each value is its kind, then its length where it has one, then
// its bytes. Strings are hashed as bytes, invalid UTF-8 and NUL included;
// a nil slice is an empty one.
func write(h hash.Hash, v reflect.Value) {
	var n [8]byte
	number := func(x uint64) {
		binary.BigEndian.PutUint64(n[:], x)
		h.Write(n[:])
	}
	if !v.IsValid() {
		h.Write([]byte{0})
		return
	}
	h.Write([]byte{byte(v.Kind())})
	if v.Type() == timeType {
		number(uint64(v.Interface().(time.Time).UnixMicro()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		number(uint64(v.Len()))
		h.Write([]byte(v.String()))
	case reflect.Bool:
		if v.Bool() {
			number(1)
		} else {
			number(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		number(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		number(v.Uint())
	case reflect.Float32, reflect.Float64:
		number(math.Float64bits(v.Float()))
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			number(0)
			return
		}
		number(1)
		write(h, v.Elem())
	case reflect.Slice, reflect.Array:
		number(uint64(v.Len()))
		for i := range v.Len() {
			write(h, v.Index(i))
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			return cmp.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
		})
		number(uint64(len(keys)))
		for _, k := range keys {
			write(h, k)
			write(h, v.MapIndex(k))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				write(h, v.Field(i))
			}
		}
	default:
		panic(fmt.Sprintf("storecopy: cannot hash a %s", v.Type()))
	}
}
